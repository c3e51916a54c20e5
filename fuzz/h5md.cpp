// libFuzzer harness: the H5MD reader on any bytes (libhdf5 parses the container).
#include "fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return pairhist::fuzz::fuzz_trajectory(data, size, ".h5md");
}
