#include "drivers/job/box_limit.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "io/trajectory/trajectory_reader.hpp"
#include "io/xtc/xtc_scanner.hpp"
#include "pairhist/box_setup.hpp"
#include "pairhist/errors.hpp"

namespace pairhist {
namespace {

bool in_window(const JobOptions& o, int64_t index, double time) {
  if (index < o.first || (o.last >= 0 && index > o.last)) return false;
  if (!std::isnan(o.begin_time) && time < o.begin_time) return false;
  if (!std::isnan(o.end_time) && time > o.end_time) return false;
  return true;
}

void take_box(const JobOptions& o, int64_t index, const std::array<float, 9>& frame_box,
              BoxLimit& limit) {
  const std::array<float, 9> box = o.xy ? xy_box(frame_box) : frame_box;
  BoxMatrix m;
  for (int i = 0; i < 9; ++i) m[i] = box[i];
  const double r = max_minimum_image_rmax(m);
  if (!std::isfinite(r))
    throw UsageError(o.trajectory + ": frame " + std::to_string(index) +
                     " has no periodic box, so there is no largest r_max: give --rmax");
  if (limit.frames == 0) limit.first_nm = r;
  if (limit.frames == 0 || r < limit.r_max_nm) limit.r_max_nm = r, limit.frame = index;
  ++limit.frames;
}

bool is_xtc(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return ext == ".xtc";
}

}  // namespace

std::array<float, 9> xy_box(const std::array<float, 9>& box) {
  std::array<float, 9> out = box;
  out[6] = out[7] = 0;
  out[8] = 2 * std::max(box[0], box[4]);
  return out;
}

BoxLimit smallest_box_limit(const JobOptions& o) {
  BoxLimit limit;
  if (is_xtc(o.trajectory)) {
    // The box is in every frame's header: the coordinates are passed over, not decoded.
    io::xtc::Scanner scanner(o.trajectory);
    io::xtc::RawFrame raw;
    std::string problem;
    for (int64_t index = 0;; ++index) {
      if (o.last >= 0 && index > o.last) break;
      const auto status = scanner.skip(raw, problem);
      if (status == io::xtc::Scanner::Status::end) break;
      // A file that ends inside a frame: the run ends before it (FrameSource), and so do the
      // boxes it is counted in.
      if (status == io::xtc::Scanner::Status::error && scanner.cut() && index > 0) break;
      if (status == io::xtc::Scanner::Status::error)
        throw InputError(io::xtc::frame_error(o.trajectory, index, problem));
      if (in_window(o, index, raw.time)) take_box(o, index, raw.box, limit);
    }
  } else {
    const auto reader = io::open_trajectory(o.trajectory);
    io::TrajectoryFrame frame;
    try {
      for (int64_t index = 0; (o.last < 0 || index <= o.last) && reader->next(frame); ++index)
        if (in_window(o, index, frame.time)) take_box(o, index, frame.box, limit);
    } catch (const TruncatedFrame&) {
      if (reader->frames_read() == 0) throw;  // as the run ends before a cut frame (FrameSource)
    }
  }
  if (limit.frames == 0)
    throw UsageError(o.trajectory + ": no frame in the frame window, so no box to take r_max from");
  return limit;
}

}  // namespace pairhist
