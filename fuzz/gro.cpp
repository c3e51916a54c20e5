// libFuzzer harness: the multi-frame GRO trajectory reader on any bytes.
#include "fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return pairhist::fuzz::fuzz_trajectory(data, size, ".gro");
}
