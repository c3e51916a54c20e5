// libFuzzer harness: AMBER's ASCII coordinates on any bytes: an .mdcrd read with several atom
// counts (the format states none: the topology's is given), and the bytes as an .rst7 restart.
#include <memory>

#include "fuzz/fuzz_support.hpp"
#include "io/trajectory/amber_mdcrd_reader.hpp"
#include "pairhist/errors.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace pairhist;
  const std::string& path = fuzz::write_input(data, size, ".mdcrd");
  // 41 and 252: the fixtures' atom counts; 1 and 2: the counts whose box lines are ambiguous.
  for (int natoms : {1, 2, 3, 41, 252}) {
    try {
      io::AmberMdcrdReader reader(path, natoms);
      io::TrajectoryFrame frame;
      int64_t frames = 0;
      while (reader.next(frame)) {
        if (frame.xyz.size() != 3 * static_cast<size_t>(natoms))
          fuzz::violated("mdcrd frame holds " + std::to_string(frame.xyz.size()) + " values");
        if (reader.frames_read() != ++frames) fuzz::violated("mdcrd frames_read() is wrong");
      }
    } catch (const InputError& e) {
      fuzz::check_message(e.what(), path + ": ");
    }
  }
  return fuzz::fuzz_trajectory(data, size, ".rst7");
}
