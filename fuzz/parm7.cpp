// libFuzzer harness: the AMBER parm7/prmtop topology reader on any bytes.
#include "fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return pairhist::fuzz::fuzz_topology(data, size, ".parm7");
}
