// libFuzzer harness: the G96 reader on any bytes, as a trajectory (every frame) and as a
// topology (the first frame's names), the two uses of its one parser.
#include "fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& path = pairhist::fuzz::write_input(data, size, ".g96");
  pairhist::fuzz::read_trajectory(path);
  pairhist::fuzz::read_topology(path);
  return 0;
}
