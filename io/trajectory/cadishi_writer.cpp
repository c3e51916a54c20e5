#include "io/trajectory/cadishi_writer.hpp"

#include <cmath>

#include "io/trajectory/unit_cell.hpp"
#include "pairhist/errors.hpp"

namespace pairhist::io {

namespace {
constexpr double kAngstromPerNm = 10.0;
}

void CadishiWriter::fail(const std::string& what) const {
  throw OutputError("cannot write HDF5 file '" + output_.final_path() + "': " + what);
}

CadishiWriter::CadishiWriter(std::string path, std::vector<std::string> species,
                             std::vector<std::vector<int>> atoms)
    : output_(std::move(path)), species_(std::move(species)), atoms_(std::move(atoms)) {
  for (const auto& s : species_)
    if (s.empty() || s == "." || s.find('/') != std::string::npos)
      throw UsageError("species name '" + s + "' cannot be an HDF5 dataset name");
  Hdf5Gate gate;
  SilenceHdf5Errors quiet;
  file_ = H5Handle(H5Fcreate(output_.temp_path().c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT),
                   H5Fclose);
  if (!file_.valid()) fail("cannot create the file");
}

CadishiWriter::~CadishiWriter() = default;

void CadishiWriter::write(int64_t number, const TrajectoryFrame& frame) {
  if (closed_) fail("write after close");
  Hdf5Gate gate;
  SilenceHdf5Errors quiet;
  const std::string name = std::to_string(number);
  if (H5Lexists(file_.get(), name.c_str(), H5P_DEFAULT) > 0)
    fail("frame " + name + " written twice");
  H5Handle group(H5Gcreate2(file_.get(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                 H5Gclose);
  if (!group.valid()) fail("cannot create group " + name);
  H5Handle coords(H5Gcreate2(group.get(), "coordinates", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                  H5Gclose);
  if (!coords.valid()) fail("cannot create group " + name + "/coordinates");
  for (size_t s = 0; s < species_.size(); ++s) {
    buf_.clear();
    for (int a : atoms_[s])
      for (int d = 0; d < 3; ++d)
        buf_.push_back(static_cast<double>(frame.xyz[3 * static_cast<size_t>(a) + d]) *
                       kAngstromPerNm);
    const hsize_t dims[2] = {static_cast<hsize_t>(atoms_[s].size()), 3};
    H5Handle space(H5Screate_simple(2, dims, nullptr), H5Sclose);
    H5Handle set(H5Dcreate2(coords.get(), species_[s].c_str(), H5T_IEEE_F64LE, space.get(),
                            H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                 H5Dclose);
    if (!set.valid() ||
        H5Dwrite(set.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf_.data()) < 0)
      fail("cannot write " + name + "/coordinates/" + species_[s]);
  }
  std::array<double, 9> box;
  bool has_box = false;
  for (int k = 0; k < 9; ++k) {
    box[static_cast<size_t>(k)] =
        static_cast<double>(frame.box[static_cast<size_t>(k)]) * kAngstromPerNm;
    has_box = has_box || box[static_cast<size_t>(k)] != 0;
  }
  if (has_box) {
    const std::array<double, 6> cell = cell_from_box(box);
    const hsize_t dims[1] = {6};
    H5Handle space(H5Screate_simple(1, dims, nullptr), H5Sclose);
    H5Handle set(H5Dcreate2(group.get(), "dimensions", H5T_IEEE_F64LE, space.get(), H5P_DEFAULT,
                            H5P_DEFAULT, H5P_DEFAULT),
                 H5Dclose);
    if (!set.valid() ||
        H5Dwrite(set.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, cell.data()) < 0)
      fail("cannot write " + name + "/dimensions");
  }
  ++frames_;
}

void CadishiWriter::close() {
  if (closed_) return;
  closed_ = true;
  Hdf5Gate gate;
  SilenceHdf5Errors quiet;
  if (file_.close() < 0) fail("closing the file failed");
  output_.commit();
}

}  // namespace pairhist::io
