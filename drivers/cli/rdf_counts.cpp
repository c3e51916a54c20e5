#include "drivers/cli/rdf_counts.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "drivers/cli/option_rules.hpp"
#include "drivers/job/box_limit.hpp"
#include "io/trajectory/trajectory_reader.hpp"
#include "pairhist/errors.hpp"

namespace pairhist {
namespace {

// The most bins one half of -bin is split into for -cut: -cut then needs no more decimals than
// the bin width has plus two (bin 0.002: -cut to 0.00001 nm).
constexpr int kMaxSplit = 100;

/// gmx rdf -rmax 0: 0.99 x the largest cut-off GROMACS allows in the first frame's box
/// (max_cutoff2: half the shortest box vector, and the smallest diagonal element less the
/// tilt of c along y; with -xy, of the box gmx makes for it, xy_box).
double gmx_default_rmax(const std::string& trajectory, bool xy) {
  const auto reader = io::open_trajectory(trajectory);
  io::TrajectoryFrame frame;
  if (!reader->next(frame)) throw InputError(trajectory + ": no frame");
  const auto b = xy ? xy_box(frame.box) : frame.box;
  const auto norm2 = [&](int v) {
    return double(b[3 * v]) * b[3 * v] + double(b[3 * v + 1]) * b[3 * v + 1] +
           double(b[3 * v + 2]) * b[3 * v + 2];
  };
  if (norm2(0) == 0 || norm2(1) == 0 || norm2(2) == 0)
    throw UsageError(trajectory + ": frame 0 has no periodic box: give -rmax");
  const double half_vector = 0.25 * std::min({norm2(0), norm2(1), norm2(2)});
  const double diagonal = std::min({double(b[0]), double(b[4]) - std::fabs(b[7]), double(b[8])});
  return std::sqrt(0.99 * 0.99 * std::min(half_vector, diagonal * diagonal));
}

/// The fewest bins per half-bin that put `cut` on a bin edge, and that edge's bin; UsageError
/// when kMaxSplit do not.
void split_for_cut(RdfRequest& q, double half) {
  for (int k = 1; k <= kMaxSplit; ++k) {
    const double edge = q.cut / half * k;
    if (std::fabs(edge - std::round(edge)) <= 1e-9 * std::max(1.0, edge)) {  // decimals
      q.split = k;
      q.first_bin = static_cast<int>(std::min(std::round(edge), 1e9));
      return;
    }
  }
  char text[160];
  std::snprintf(text, sizeof text,
                "-cut %.10g falls on no edge of bins %d times finer than -bin / 2 = %g nm: "
                "give fewer decimals (e.g. -cut %g)",
                q.cut, kMaxSplit, half, std::round(q.cut / half) * half);
  throw UsageError(text);
}

/// The job's bins (q.split per half-bin) summed into half-bins, those below -cut left out.
std::vector<double> half_bins(const RdfRequest& q, const std::vector<uint64_t>& counts,
                              double factor) {
  std::vector<double> half(counts.size() / static_cast<size_t>(q.split), 0);
  for (size_t b = static_cast<size_t>(std::min<int64_t>(q.first_bin, counts.size()));
       b < counts.size(); ++b)
    half[b / static_cast<size_t>(q.split)] += static_cast<double>(counts[b]) * factor;
  return half;
}

}  // namespace

void choose_bins(RdfRequest& q) {
  JobOptions& o = q.job;
  const bool from_box = q.rmax == 0;
  const double rmax = from_box ? gmx_default_rmax(o.trajectory, o.xy) : q.rmax;
  const double half = q.bin / 2;
  double halves = rmax / half;
  // gmx rdf histograms half bins over [0, H half) with H = rmax / half rounded to the nearest
  // whole number (its AnalysisHistogramSettings), and finds pairs at r < rmax: where H half
  // passes rmax, the last half bin is partial (r_cut), its counts written as they are; where it
  // falls short, the pairs beyond H half are not counted. Its n(r) has H / 2 rows (rounded
  // down), its g(r) (H + 1) / 2.
  const bool whole = std::fabs(halves - std::round(halves)) < 1e-6 * halves;
  const double nearest = std::floor(halves + 0.5);
  double cut = !whole && nearest > halves ? rmax : 0;
  halves = whole ? std::round(halves) : nearest;
  if (from_box) {
    // gmx takes the first frame's box; a later, smaller box (NPT) would leave pairs beyond its
    // minimum-image limit uncounted, so r_max stops at the smallest box's limit: gmx's rows up
    // to there, the same r values.
    const BoxLimit limit = smallest_box_limit(o);
    const double fits = std::floor(limit.r_max_nm / half * (1 + 1e-9));
    if (fits < halves) {
      std::fprintf(stderr,
                   "pairhist rdf: note: -rmax 0 stops at %g nm, where gmx rdf takes %g nm from "
                   "the first frame: the box of frame %lld allows no more\n",
                   fits * half, halves * half, static_cast<long long>(limit.frame));
      halves = fits;
      cut = 0;
    }
  }
  split_for_cut(q, half);
  const double counted_below = cut > 0 ? cut : halves * half;
  if (q.cut >= counted_below)
    std::fprintf(stderr, "pairhist rdf: note: -cut %g is not below -rmax %g: nothing is counted\n",
                 q.cut, counted_below);
  if (halves < 2) throw UsageError("-rmax / -bin gives no usable bins");
  if (const std::string problem = bins_limit_problem(halves * q.split); !problem.empty())
    throw UsageError("-rmax / -bin makes " + problem);
  o.nbins = static_cast<int>(halves) * q.split;
  o.r_max = halves * half;
  o.r_cut = cut;
}

RdfCounts count_pairs(const RdfRequest& q, const std::vector<int>& species_of_sel) {
  const JobOutcome out = run_trajectory_job(q.job);
  const HistogramResult& r = out.result;
  if (r.volumes.size() != r.frame_indices.size())
    throw InputError(q.job.trajectory + ": no periodic box: no density for g(r)");
  RdfCounts c;
  c.frames = static_cast<double>(r.frame_indices.size());
  c.seconds = out.seconds;
  c.incomplete_frame = out.incomplete_frame;
  // gmx rdf's normalisation: the mean reference atoms <N_ref> and the mean selection density
  // <N_sel / V> over the frames; with dynamic selections each frame's own sizes.
  const auto mean_atoms = [&](size_t s, bool per_volume) {
    double sum = 0;
    for (size_t f = 0; f < r.frame_indices.size(); ++f)
      sum += static_cast<double>(r.dynamic() ? r.frame_species_counts[f][s] : r.species[s].count) *
             (per_volume ? 1 / r.volumes[f] : 1.0);
    return sum / c.frames;
  };
  c.ref_count = mean_atoms(0, false);
  for (int s : species_of_sel) {
    const auto it = std::find_if(r.pairs.begin(), r.pairs.end(),
                                 [&](const PairHistogram& h) { return h.a == 0 && h.b == s; });
    // The reference with itself: each pair counted once, gmx's ordered pairs twice.
    c.half_counts.push_back(half_bins(q, it->counts, s == 0 ? 2 : 1));
    c.sel_density.push_back(mean_atoms(static_cast<size_t>(s), true));
  }
  return c;
}

RdfCounts count_surfaces(const RdfRequest& q, const std::vector<int>& species_of_sel) {
  std::vector<int> species = species_of_sel;
  std::sort(species.begin(), species.end());
  species.erase(std::unique(species.begin(), species.end()), species.end());
  const SurfaceOutcome out = run_surface_job(q.job, q.surface_unit, q.first_bin, species);
  RdfCounts c;
  c.frames = static_cast<double>(out.frames);
  c.ref_count = out.mean_groups;
  c.seconds = out.seconds;
  c.incomplete_frame = out.incomplete_frame;
  for (int s : species_of_sel) {
    c.half_counts.push_back(half_bins(q, out.counts[static_cast<size_t>(s)], 1));
    c.sel_density.push_back(0);  // -surf normalises by none (gmx: its bins have no volume)
  }
  return c;
}

}  // namespace pairhist
