// `pairhist bench --decode FILE`: how fast a trajectory is read and decoded (frames/s, atoms/s,
// MB/s, median of repeats), serially or with XtcParallelReader's decode threads.
#pragma once

#include <string>

namespace pairhist {

struct DecodeBenchOptions {
  std::string path;
  int threads = 0;  // decode threads; 0: automatic (io::automatic_decode_threads)
  int repeats = 5;
  int warmup = 1;
  bool json = false;
};

/// Reads the whole file warmup + repeats times and prints one line (or one JSON object).
void run_decode_bench(const DecodeBenchOptions& options);

}  // namespace pairhist
