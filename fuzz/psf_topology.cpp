// libFuzzer harness: the PSF topology reader on any bytes. A PSF has no coordinates, so its own
// invariants are checked here: every column has one entry per atom, molecules and exclusions
// (from the bonds) name atoms that exist, and each atom's exclusions are ascending and hold it.
#include <string>

#include "fuzz/fuzz_support.hpp"
#include "io/topology/psf_reader.hpp"
#include "pairhist/errors.hpp"

namespace {

using pairhist::fuzz::violated;

void check(const pairhist::analysis::Topology& top) {
  const size_t n = top.atom_names.size();
  if (top.residue_names.size() != n || top.residue_numbers.size() != n ||
      top.segment_names.size() != n || top.types.size() != n || top.elements.size() != n ||
      top.masses.size() != n || top.charges.size() != n)
    violated("a column disagrees with the " + std::to_string(n) + " atom names");
  if (!top.xyz.empty()) violated("coordinates from a PSF");
  if (top.molecule_index.empty() != top.exclusion_offsets.empty())
    violated("molecules without exclusions or the reverse");
  if (top.molecule_index.empty()) return;
  if (top.molecule_index.size() != n || top.exclusion_offsets.size() != n + 1)
    violated("molecule or exclusion rows do not match the atoms");
  for (size_t i = 0; i < n; ++i) {
    if (top.molecule_index[i] < 0 || static_cast<size_t>(top.molecule_index[i]) > i)
      violated("molecule number out of order");
    bool self = false;
    for (int64_t e = top.exclusion_offsets[i]; e < top.exclusion_offsets[i + 1]; ++e) {
      const int a = top.exclusion_atoms[static_cast<size_t>(e)];
      if (a < 0 || static_cast<size_t>(a) >= n) violated("exclusion of a missing atom");
      if (e > top.exclusion_offsets[i] && a <= top.exclusion_atoms[static_cast<size_t>(e - 1)])
        violated("exclusions not ascending");
      self = self || static_cast<size_t>(a) == i;
    }
    if (!self) violated("an atom does not exclude itself");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& path = pairhist::fuzz::write_input(data, size, ".psf");
  try {
    check(pairhist::io::read_psf(path));
  } catch (const pairhist::InputError& e) {
    pairhist::fuzz::check_message(e.what(), path + ": ");
  }
  return 0;
}
