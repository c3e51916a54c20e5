// libFuzzer harness: the AMBER NetCDF reader (libnetcdf underneath) on any bytes, as a
// trajectory (.nc) and as a restart (.ncrst).
#include "fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  pairhist::fuzz::fuzz_trajectory(data, size, ".nc");
  return pairhist::fuzz::fuzz_trajectory(data, size, ".ncrst");
}
