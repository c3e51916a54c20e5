#include "drivers/cli/bench_command.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <numeric>
#include <thread>

#include "drivers/workloads/bench_cases.hpp"
#include "drivers/workloads/decode_bench.hpp"
#include "drivers/workloads/plain_loop.hpp"
#include "pairhist/errors.hpp"
#include "pairhist/pairhist_c.h"
#include "pairhist/settings.hpp"

namespace pairhist {
namespace {

struct BenchArgs {
  std::string case_name = "K1";
  int64_t n = 0;
  int bins = 0;
  double r_max = 0;
  std::string algorithm = "auto";
  std::string box;
  std::string precision = "single";
  std::string device = "cpu";
  int threads = 0;
  int repeats = 5;
  int warmup = 1;
  int frames = 0;
  bool json = false;
  bool plain = false;
  std::string decode;        // a trajectory: benchmark reading it instead of a kernel
  LiquidSampleFiles sample;  // W1, W1-T: the liquid to replicate (empty: the bundled one)
};

struct Measurement {
  std::vector<double> seconds;
  uint64_t pairs = 0;    // examined per repeat
  uint64_t counted = 0;  // within r_max, per repeat
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

void apply_overrides(const BenchArgs& a, BenchCase& c) {
  // The real liquid's boxes are part of its structure; a different box would tear it apart.
  if (c.liquid && !a.box.empty())
    throw UsageError("--box does not apply to " + c.name + " (its frames carry their own boxes)");
  if (a.bins > 0) c.nbins = a.bins;
  if (a.r_max > 0) c.r_max = a.r_max;
  if (a.frames > 0) c.frames = a.frames;
  if (a.box == "none") {
    c.box = {};
  } else if (a.box == "orthorhombic") {
    c.box = {c.extent, 0, 0, 0, c.extent, 0, 0, 0, c.extent};
  } else if (a.box == "triclinic") {
    c.box = rhombic_dodecahedron(c.extent);
  } else if (a.box == "truncated-octahedron") {
    c.box = truncated_octahedron(c.extent);
  }
  if (!a.box.empty() && classify_box(c.box) == BoxKind::triclinic)
    c.r_max = std::min(c.r_max, max_minimum_image_rmax(c.box));
}

/// One ph_histograms_* call per frame, each frame's coordinates prepared beforehand.
Measurement measure(const BenchArgs& a, const BenchCase& c, int device_id) {
  const bool single = a.precision == "single";
  std::vector<std::vector<std::vector<float>>> fxyz;
  std::vector<std::vector<std::vector<double>>> dxyz;
  std::vector<std::vector<const void*>> ptrs(static_cast<size_t>(c.frames));
  for (int t = 0; t < c.frames; ++t) {
    fxyz.push_back(case_coordinates(c, t));
    if (!single) {
      dxyz.emplace_back();
      for (const auto& s : fxyz.back()) dxyz.back().emplace_back(s.begin(), s.end());
      for (const auto& s : dxyz.back()) ptrs[static_cast<size_t>(t)].push_back(s.data());
    } else {
      for (const auto& s : fxyz.back()) ptrs[static_cast<size_t>(t)].push_back(s.data());
    }
  }
  std::vector<BoxMatrix> boxes;
  for (int t = 0; t < c.frames; ++t) boxes.push_back(case_box(c, t));
  ph_frame frame{};
  frame.n_species = static_cast<int>(c.species_sizes.size());
  frame.species_sizes = c.species_sizes.data();
  frame.precision = single ? PH_SINGLE : PH_DOUBLE;
  frame.r_max = c.r_max;
  frame.n_bins = c.nbins;
  frame.algorithm = a.algorithm == "cell-list"   ? PH_CELL_LIST
                    : a.algorithm == "all-pairs" ? PH_ALL_PAIRS
                                                 : PH_AUTO;
  const size_t values = static_cast<size_t>(ph_pair_count(frame.n_species)) * c.nbins;
  std::vector<uint64_t> hist(values);

  Measurement m;
  for (size_t s = 0; s < c.species_sizes.size(); ++s)
    for (size_t t = s; t < c.species_sizes.size(); ++t) {
      const auto na = static_cast<uint64_t>(c.species_sizes[s]);
      const auto nb = static_cast<uint64_t>(c.species_sizes[t]);
      m.pairs += (s == t ? na * (na - 1) / 2 : na * nb) * static_cast<uint64_t>(c.frames);
    }
  for (int r = -a.warmup; r < a.repeats; ++r) {
    std::fill(hist.begin(), hist.end(), 0);
    const auto start = std::chrono::steady_clock::now();
    for (int t = 0; t < c.frames; ++t) {
      frame.coordinates = ptrs[static_cast<size_t>(t)].data();
      for (size_t i = 0; i < 9; ++i) frame.box[i] = boxes[static_cast<size_t>(t)][i];
      const int rc = device_id < 0 ? ph_histograms_cpu(&frame, a.threads, hist.data())
                                   : ph_histograms_gpu(&frame, device_id, hist.data());
      if (rc != 0) throw UsageError(ph_last_error());
    }
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (r >= 0) m.seconds.push_back(s);
  }
  m.counted = std::accumulate(hist.begin(), hist.end(), uint64_t(0));
  return m;
}

Measurement measure_plain(const BenchArgs& a, const BenchCase& c) {
  const auto xyz = case_coordinates(c, 0);
  std::vector<uint64_t> hist(static_cast<size_t>(c.nbins));
  Measurement m;
  const auto n = static_cast<uint64_t>(c.species_sizes[0]);
  m.pairs = n * (n - 1) / 2;
  for (int r = -a.warmup; r < a.repeats; ++r) {
    std::fill(hist.begin(), hist.end(), 0);
    const auto start = std::chrono::steady_clock::now();
    plain_loop_histogram(xyz[0].data(), c.species_sizes[0], static_cast<float>(c.r_max), c.nbins,
                         hist.data());
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (r >= 0) m.seconds.push_back(s);
  }
  m.counted = std::accumulate(hist.begin(), hist.end(), uint64_t(0));
  return m;
}

void report(const BenchArgs& a, const BenchCase& c, const std::string& device, int threads,
            const std::string& impl, const Measurement& m) {
  const double med = median(m.seconds);
  const auto [lo, hi] = std::minmax_element(m.seconds.begin(), m.seconds.end());
  const double bapps = m.pairs / med * 1e-9;
  int64_t n = 0;
  for (int64_t s : c.species_sizes) n += s;
  const char* box = box_kind_name(classify_box(c.box));
  if (a.json) {
    nlohmann::json j = {
        {"case", c.name},
        {"n", n},
        {"species", c.species_sizes},
        {"frames", c.frames},
        {"bins", c.nbins},
        {"r_max", c.r_max},
        {"box", box},
        {"cell", a.box.empty() ? std::string(box) : a.box},
        {"precision", a.precision},
        {"algorithm", a.algorithm},
        {"device", device},
        {"threads", threads},
        {"impl", impl},
        {"cpu_kernels", impl == "cpu" ? nlohmann::json(ph_cpu_kernels()) : nlohmann::json(nullptr)},
        {"bapps_median", bapps},
        {"seconds_median", med},
        {"seconds_min", *lo},
        {"seconds_max", *hi},
        {"repeats", m.seconds.size()},
        {"pairs", m.pairs},
        {"counted_pairs", m.counted},
        {"dropped_pairs", m.pairs - m.counted}};
    if (c.liquid) j["replicas"] = c.replicas;
    std::printf("%s\n", j.dump().c_str());
  } else {
    std::printf(
        "%-3s n=%-9lld bins=%-6d box=%-12s %-6s %-6s threads=%-3d %-6s %9.3f bapps  "
        "median %.4f s [%.4f, %.4f] counted %llu%s%s\n",
        c.name.c_str(), static_cast<long long>(n), c.nbins, box, a.precision.c_str(),
        device.c_str(), threads, impl.c_str(), bapps, med, *lo, *hi,
        static_cast<unsigned long long>(m.counted), impl == "cpu" ? "  kernels " : "",
        impl == "cpu" ? ph_cpu_kernels() : "");
  }
  std::fflush(stdout);
}

void run(const BenchArgs& a) {
  if (!a.decode.empty()) {
    run_decode_bench({a.decode, a.threads, a.repeats, a.warmup, a.json});
    return;
  }
  if (a.repeats < 1) throw UsageError("--repeats must be at least 1");
  if (!is_liquid_case(a.case_name) && (!a.sample.xtc.empty() || !a.sample.gro.empty()))
    throw UsageError("--sample and --sample-top apply to W1 and W1-T only");
  ph_force_avx2_kernels(settings().force_avx2_kernels ? 1 : 0);  // PAIRHIST_CPU_KERNELS
  BenchCase c = standard_case(a.case_name, a.n, a.sample);
  apply_overrides(a, c);
  int device_id = -1;
  std::string device = a.device;
  if (a.device.rfind("gpu", 0) == 0) {
    device_id = a.device.size() > 4 ? std::stoi(a.device.substr(4)) : 0;
    if (ph_gpu_count() == 0) throw UsageError("--device " + a.device + ": no CUDA device");
    device = "gpu" + std::to_string(device_id);
  } else if (a.device != "cpu") {
    throw UsageError("--device must be cpu, gpu or gpu:N");
  }
  const int threads =
      device_id < 0
          ? (a.threads > 0 ? a.threads : static_cast<int>(std::thread::hardware_concurrency()))
          : 0;
  const Measurement m = measure(a, c, device_id);
  report(a, c, device, threads, device_id < 0 ? "cpu" : "cuda", m);
  if (a.plain) {
    if (c.species_sizes.size() != 1 || classify_box(c.box) != BoxKind::none)
      throw UsageError("--plain compares one species without a box (K1, K5, K6)");
    BenchCase one = c;
    one.frames = 1;
    const Measurement p = measure_plain(a, one);
    report(a, one, "cpu", 1, "plain", p);
    if (!a.json)
      std::printf("speed-up over the plain single-thread loop: %.2fx (%.2fx per thread)\n",
                  median(p.seconds) / median(m.seconds) * c.frames,
                  median(p.seconds) / median(m.seconds) * c.frames / std::max(1, threads));
  }
}

}  // namespace

void add_bench_command(CLI::App& app) {
  auto a = std::make_shared<BenchArgs>();
  CLI::App* cmd = app.add_subcommand(
      "bench", "Kernel benchmark on a standard case (DESIGN.md): bapps, median of repeats");
  cmd->add_option("--case", a->case_name,
                  "K1..K6, F1 (random points), W1 (SPC/E water replicated n x n x n, species O "
                  "and H, r_max 1.2 nm, 240 bins, 10 frames) or W1-T (NaCl solution in a rhombic "
                  "dodecahedron, likewise)")
      ->capture_default_str();
  cmd->add_option("--n", a->n,
                  "Scale the case to about n atoms (0: as defined; W1: round(cbrt(n / sample "
                  "atoms)) replicas per direction, about 1.4e6 atoms by default)");
  cmd->add_option("--sample", a->sample.xtc,
                  "W1, W1-T: the liquid trajectory to replicate (default: the bundled sample)");
  cmd->add_option("--sample-top", a->sample.gro,
                  "W1, W1-T: the sample's GRO topology (default: --sample with .gro)");
  cmd->add_option("--bins", a->bins, "Override the number of bins");
  cmd->add_option("--rmax", a->r_max, "Override r_max (in the case's length unit)");
  cmd->add_option("--algorithm", a->algorithm,
                  "auto (a cost model per species pair), all-pairs or cell-list")
      ->check(CLI::IsMember({"auto", "all-pairs", "cell-list"}))
      ->capture_default_str();
  cmd->add_option("--box", a->box,
                  "Override the box: none, orthorhombic, triclinic (a rhombic dodecahedron) or "
                  "truncated-octahedron (unit cell scaled to the case)")
      ->check(CLI::IsMember({"none", "orthorhombic", "triclinic", "truncated-octahedron"}));
  cmd->add_option("--frames", a->frames, "Override the number of frames");
  cmd->add_option("--precision", a->precision)
      ->check(CLI::IsMember({"single", "double"}))
      ->capture_default_str();
  cmd->add_option("--device", a->device, "cpu, gpu or gpu:N")->capture_default_str();
  cmd->add_option(
         "--threads", a->threads,
         "CPU threads (0: all cores); with --decode, decode threads (0: as many as a run bound "
         "by reading grows to)")
      ->capture_default_str();
  cmd->add_option("--repeats", a->repeats, "Timed repeats")->capture_default_str();
  cmd->add_option("--warmup", a->warmup, "Untimed repeats first")->capture_default_str();
  cmd->add_flag("--json", a->json, "One JSON object per measurement");
  cmd->add_flag(
      "--plain", a->plain,
      "Also time the plain single-thread loop (float, sqrt, histogram++) on the same data");
  cmd->add_option("--decode", a->decode,
                  "Instead of a kernel, time reading and decoding this trajectory (frames/s, "
                  "atoms/s, MB/s); XTC files decode on --threads threads");
  cmd->callback([a]() { run(*a); });
}

}  // namespace pairhist
