// libFuzzer harness: the GROMACS index (.ndx) reader, against a topology of 900 atoms.
#include <string>

#include "fuzz/fuzz_support.hpp"
#include "io/topology/ndx_reader.hpp"
#include "pairhist/errors.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  constexpr int kNatoms = 900;
  const std::string& path = pairhist::fuzz::write_input(data, size, ".ndx");
  try {
    const pairhist::analysis::IndexGroups groups = pairhist::io::read_ndx(path, kNatoms);
    if (groups.names.empty() || groups.names.size() != groups.atoms.size())
      pairhist::fuzz::violated("group names and atom lists disagree");
    for (const auto& atoms : groups.atoms)
      for (int a : atoms)
        if (a < 0 || a >= kNatoms)
          pairhist::fuzz::violated("atom index " + std::to_string(a) + " out of range");
    if (groups.find(groups.names[0]) != &groups.atoms[0])
      pairhist::fuzz::violated("find() does not return the first group of a name");
  } catch (const pairhist::InputError& e) {
    pairhist::fuzz::check_message(e.what(), path + ": ");
  }
  return 0;
}
