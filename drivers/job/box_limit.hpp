// The largest r_max a run's frames allow (`run` without --rmax, `rdf -rmax 0`): the smallest
// minimum-image limit (half the shortest lattice vector) over the boxes of the frames it reads.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "drivers/job/trajectory_job.hpp"

namespace pairhist {

struct BoxLimit {
  double r_max_nm = 0;  // the smallest limit over the frames
  int64_t frame = -1;   // the frame that sets it (0-based in the file)
  int64_t frames = 0;   // frames whose box was read
  double first_nm = 0;  // the first of those frames' limit
};

/// gmx rdf -xy's box: a and b as they are, c = (0, 0, 2 max(a_x, b_y)) (what gmx takes for its
/// -rmax 0), so that with every z set to 0 the minimum image is that of the x-y lattice.
std::array<float, 9> xy_box(const std::array<float, 9>& box);

/// Reads the box of every frame in o's frame window (--first/--last, --begin/--end; --step is
/// ignored: the limit then holds for any step): XTC frames from their headers only, other formats
/// by reading the frames; up to a frame the file ends inside (where the run ends too). UsageError
/// naming the file and frame when a frame has no periodic box (r_max must then be given), or when
/// no frame is in the window.
BoxLimit smallest_box_limit(const JobOptions& o);

}  // namespace pairhist
