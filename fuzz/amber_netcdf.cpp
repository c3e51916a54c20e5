// libFuzzer harness: the AMBER NetCDF reader (libnetcdf underneath) on any bytes, as a
// trajectory (.nc) and as a restart (.ncrst); the trajectory read on 3 threads
// (AmberNetcdfParallelReader, pread) must give the serial reader's frames and error.
#include <memory>
#include <string>
#include <vector>

#include "fuzz/fuzz_support.hpp"
#include "io/trajectory/amber_netcdf_parallel_reader.hpp"
#include "pairhist/errors.hpp"

namespace {

struct Reading {
  std::vector<pairhist::io::TrajectoryFrame> frames;
  std::string error;  // what ended it ("" at a clean end)
  bool opened = false;
};

// At most 64 frames: their bytes all come from the input, so that bounds the work.
Reading read_with(const std::string& path, int threads) {
  Reading r;
  try {
    auto reader = pairhist::io::open_amber_netcdf(path, [&](int) { return threads; });
    r.opened = true;
    pairhist::io::TrajectoryFrame frame;
    while (r.frames.size() < 64 && reader->next(frame)) r.frames.push_back(frame);
  } catch (const pairhist::InputError& e) {
    r.error = e.what();
  }
  return r;
}

bool same_frame(const pairhist::io::TrajectoryFrame& a, const pairhist::io::TrajectoryFrame& b) {
  // Bit for bit: NaN coordinates are refused, so == on floats compares the bits that matter.
  return a.xyz == b.xyz && a.box == b.box && a.step == b.step &&
         (a.time == b.time || (a.time != a.time && b.time != b.time));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  pairhist::fuzz::fuzz_trajectory(data, size, ".nc");
  const std::string path = pairhist::fuzz::write_input(data, size, ".nc");
  const Reading serial = read_with(path, 1), parallel = read_with(path, 3);
  if (serial.opened != parallel.opened || serial.error != parallel.error ||
      serial.frames.size() != parallel.frames.size())
    pairhist::fuzz::violated("3 reading threads differ from the serial reader: '" + parallel.error +
                             "' against '" + serial.error + "'");
  for (size_t k = 0; k < serial.frames.size(); ++k)
    if (!same_frame(serial.frames[k], parallel.frames[k]))
      pairhist::fuzz::violated("3 reading threads read frame " + std::to_string(k) +
                               " differently");
  return pairhist::fuzz::fuzz_trajectory(data, size, ".ncrst");
}
