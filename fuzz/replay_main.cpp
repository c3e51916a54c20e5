// Replays inputs through a fuzz harness without libFuzzer, so the regression corpus runs under
// CTest with any compiler: every argument is a file or a directory of files (not recursive; a
// missing one holds none), each fed once to LLVMFuzzerTestOneInput. A crash, an abort or an
// escaping exception fails the run; the name printed last is the input that did it.
#include <sys/resource.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kAddressSanitizer = true;
#else
constexpr bool kAddressSanitizer = false;
#endif
#else
constexpr bool kAddressSanitizer = false;
#endif

// Without AddressSanitizer's allocation limit, a reader that trusts a size declared in a small
// file would just allocate: cap the address space so that such an allocation throws bad_alloc,
// which escapes the harness and fails the test. AddressSanitizer needs terabytes of address
// space for its shadow memory, so it keeps its own limit (-malloc_limit_mb in scripts/fuzz.sh).
constexpr rlim_t kAddressSpaceLimit = rlim_t{4} << 30;

std::vector<std::filesystem::path> inputs_of(const std::filesystem::path& arg) {
  std::vector<std::filesystem::path> files;
  if (std::filesystem::is_directory(arg)) {
    for (const auto& entry : std::filesystem::directory_iterator(arg))
      if (entry.is_regular_file()) files.push_back(entry.path());
    std::sort(files.begin(), files.end());
  } else if (std::filesystem::is_regular_file(arg)) {
    files.push_back(arg);
  }
  return files;
}

}  // namespace

int main(int argc, char** argv) {
  if (!kAddressSanitizer) {
    const rlimit limit{kAddressSpaceLimit, kAddressSpaceLimit};
    setrlimit(RLIMIT_AS, &limit);
  }
  size_t replayed = 0;
  for (int a = 1; a < argc; ++a) {
    for (const auto& file : inputs_of(argv[a])) {
      std::ifstream in(file, std::ios::binary);
      const std::vector<char> bytes{std::istreambuf_iterator<char>(in),
                                    std::istreambuf_iterator<char>()};
      std::printf("replay: %s (%zu bytes)\n", file.c_str(), bytes.size());
      std::fflush(stdout);
      LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
      ++replayed;
    }
  }
  if (replayed == 0) {
    std::fprintf(stderr, "replay: no inputs\n");
    return 2;
  }
  std::printf("replay: %zu inputs, no failure\n", replayed);
  return 0;
}
