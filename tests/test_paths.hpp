// Where tests find the sample data and the pairhist binary. CMake bakes in the build machine's
// paths; the GPU suite runs the same binaries on another machine and overrides them by
// environment (PAIRHIST_DATA_DIR, PAIRHIST_BINARY).
#pragma once

#include <cstdlib>
#include <string>

namespace pairhist::test {

inline std::string env_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

inline std::string data_dir() {
  return env_or("PAIRHIST_DATA_DIR", PAIRHIST_DATA_DIR);
}
inline std::string pairhist_binary() {
  return env_or("PAIRHIST_BINARY", PAIRHIST_BINARY);
}

}  // namespace pairhist::test
