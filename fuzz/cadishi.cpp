// libFuzzer harness: a .h5 file on any bytes: CADISHI's layout (read as trajectory and topology)
// or, when it has /particles or /h5md, H5MD (libhdf5 parses the container).
#include "fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& path = pairhist::fuzz::write_input(data, size, ".h5");
  pairhist::fuzz::read_trajectory(path);
  if (pairhist::fuzz::carries_species(path)) pairhist::fuzz::read_topology(path);
  return 0;
}
