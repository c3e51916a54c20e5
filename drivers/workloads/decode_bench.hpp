// `pairhist bench --decode FILE`: how fast a trajectory is read and decoded (frames/s, atoms/s,
// MB/s and GB/s, median of repeats), serially or with XtcParallelReader's decode threads, with
// the cores kept busy (CPU seconds over wall seconds) and the page faults of a pass.
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
