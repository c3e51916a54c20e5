#include "drivers/job/frame_exclusions.hpp"

#include <stdexcept>

namespace pairhist {

FrameExclusions::FrameExclusions(const analysis::PairExclusions& exclusions,
                                 const std::vector<std::vector<int>>& atoms, size_t npairs,
                                 int nbins, double r_cut_nm, double r_min_nm)
    : exclusions_(exclusions),
      atoms_(atoms),
      nbins_(nbins),
      r_cut_nm_(r_cut_nm),
      r_min_nm_(r_min_nm),
      species_xyz_(atoms.size()) {
  for (size_t s = 0; s < atoms.size(); ++s) species_xyz_[s].resize(atoms[s].size() * 3);
  for (auto& v : species_xyz_) species_ptr_.push_back(v.data());
  if (!exclusions.empty()) bins_.assign(npairs, std::vector<uint64_t>(static_cast<size_t>(nbins)));
}

void FrameExclusions::flag_selected(const std::vector<std::vector<int>>& frame_atoms) {
  selected_.resize(atoms_.size());
  for (size_t s = 0; s < atoms_.size(); ++s) {
    const std::vector<int>& all = atoms_[s];
    const std::vector<int>& here = frame_atoms.at(s);
    selected_[s].assign(all.size(), 0);
    // Both ascending, and the frame's a subset of the species' (select_frame_species).
    size_t i = 0;
    for (int atom : here) {
      while (i < all.size() && all[i] < atom) ++i;
      if (i == all.size() || all[i] != atom)
        throw std::logic_error("FrameExclusions: a frame's atom outside its species");
      selected_[s][i++] = 1;
    }
  }
}

SparseBins FrameExclusions::bins_of(const io::TrajectoryFrame& frame, const BoxMatrix& box,
                                    BoxKind kind, bool images, double r_max_nm, Precision precision,
                                    const std::vector<std::vector<int>>* frame_atoms,
                                    std::vector<uint64_t>* frame_pairs) {
  SparseBins excluded;
  if (exclusions_.empty()) return excluded;
  const BinRange range{r_max_nm, nbins_, r_cut_nm_, r_min_nm_};
  for (size_t s = 0; s < atoms_.size(); ++s) {
    float* dst = species_xyz_[s].data();
    for (int a : atoms_[s]) {
      const float* src = &frame.xyz[3 * static_cast<size_t>(a)];
      *dst++ = src[0];
      *dst++ = src[1];
      *dst++ = src[2];
    }
  }
  if (frame_atoms) {
    flag_selected(*frame_atoms);
    left_out_.assign(bins_.size(), 0);
    exclusions_.add_selected_frame(species_ptr_, selected_, box, kind, range, precision, bins_,
                                   left_out_, images);
    for (size_t p = 0; p < left_out_.size(); ++p) frame_pairs->at(p) -= left_out_[p];
  } else {
    exclusions_.add_frame(species_ptr_, box, kind, range, precision, bins_, images);
  }
  for (size_t p = 0; p < bins_.size(); ++p)
    for (size_t k = 0; k < bins_[p].size(); ++k)
      if (bins_[p][k] != 0) {
        excluded.emplace_back(static_cast<uint32_t>(p * bins_[p].size() + k), bins_[p][k]);
        bins_[p][k] = 0;
      }
  return excluded;
}

}  // namespace pairhist
