#include "drivers/workloads/synth_case.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <system_error>

#include "drivers/workloads/bench_cases.hpp"
#include "drivers/workloads/replicated_liquid.hpp"
#include "drivers/workloads/synth_liquid.hpp"
#include "io/common/atomic_file.hpp"
#include "io/trajectory/trajectory_reader.hpp"
#include "io/xtc/xtc_writer.hpp"
#include "pairhist/box_setup.hpp"
#include "pairhist/errors.hpp"

namespace pairhist {
namespace {

// F1 is specified in Angstrom (DESIGN.md); the K cases in a unit cube, taken as nm.
bool case_is_angstrom(const BenchCase& c) {
  return c.name == "F1";
}

std::string format_number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

}  // namespace

std::string shell_quote(const std::string& s) {
  if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                        "0123456789_-+=./,:@%") == std::string::npos) {
    return s;
  }
  std::string out = "'";
  for (char ch : s) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
}

namespace {

// The smallest power of ten whose step is at most a tenth of a bin, so the XTC grid does not show
// up in the histogram; GROMACS's 1000 is the floor.
double auto_precision(const BenchCase& c, double length_to_nm) {
  const double bin_nm = c.r_max * length_to_nm / c.nbins;
  double p = 1000;
  while (1 / p > bin_nm / 10 && p < 1e9) p *= 10;
  return p;
}

void write_gro(const std::string& path, const BenchCase& c, const std::vector<std::string>& names,
               const std::vector<float>& xyz, const std::array<float, 9>& box) {
  io::AtomicOutput out(path);
  {
    std::ofstream f(out.temp_path(), std::ios::binary);
    if (!f) throw OutputError("cannot create '" + out.temp_path() + "' for " + path);
    f << "pairhist synth case " << c.name << ": species " << names.front() << ".." << names.back()
      << ", one residue per atom\n";
    const size_t natoms = xyz.size() / 3;
    f << natoms << '\n';
    std::string chunk;
    chunk.reserve(1 << 20);
    char line[96];
    size_t atom = 0;
    for (size_t s = 0; s < c.species_sizes.size(); ++s) {
      for (int64_t k = 0; k < c.species_sizes[s]; ++k, ++atom) {
        // GRO number fields are 5 wide; GROMACS wraps them the same way for large systems.
        const int number = static_cast<int>((atom + 1) % 100000);
        const int len = std::snprintf(line, sizeof line, "%5d%-5s%5s%5d%8.3f%8.3f%8.3f\n", number,
                                      names[s].c_str(), names[s].c_str(), number, xyz[3 * atom],
                                      xyz[3 * atom + 1], xyz[3 * atom + 2]);
        chunk.append(line, static_cast<size_t>(len));
        if (chunk.size() > (1 << 20) - 128) {
          f << chunk;
          chunk.clear();
        }
      }
    }
    f << chunk;
    // GRO box order: v1(x) v2(y) v3(z) v1(y) v1(z) v2(x) v2(z) v3(x) v3(y).
    const bool triclinic =
        box[1] != 0 || box[2] != 0 || box[3] != 0 || box[5] != 0 || box[6] != 0 || box[7] != 0;
    std::snprintf(line, sizeof line, "%10.5f%10.5f%10.5f", box[0], box[4], box[8]);
    f << line;
    if (triclinic) {
      std::snprintf(line, sizeof line, "%10.5f%10.5f%10.5f%10.5f%10.5f%10.5f", box[1], box[2],
                    box[3], box[5], box[6], box[7]);
      f << line;
    }
    f << '\n';
    f.close();
    if (!f) throw OutputError(path + ": cannot write the topology");
  }
  out.commit();
}

}  // namespace

SynthResult synth_case(const SynthOptions& o) {
  if (o.output.empty()) throw UsageError("synth: no output directory given (-o DIR)");
  if (is_liquid_case(o.case_name)) return synth_liquid_case(o);
  if (o.replicas != 0 || !o.sample_xtc.empty() || !o.sample_gro.empty())
    throw UsageError("--replicas, --sample and --sample-top apply to W1 and W1-T only");
  if (o.n < 0) throw UsageError("--n must be >= 0");
  if (o.frames < 0) throw UsageError("--frames must be >= 0");
  if (o.precision < 0 || !std::isfinite(o.precision))
    throw UsageError("--precision must be positive (0: automatic)");
  BenchCase c = standard_case(o.case_name, o.n);
  if (o.frames > 0) c.frames = o.frames;

  int64_t total = 0;
  for (int64_t s : c.species_sizes) total += s;
  if (total > std::numeric_limits<int>::max() / 3)
    throw UsageError("synth: " + std::to_string(total) + " atoms is too many for one XTC frame");

  const double to_nm = case_is_angstrom(c) ? 0.1 : 1.0;
  SynthResult r;
  r.natoms = static_cast<int>(total);
  r.frames = c.frames;
  r.precision = o.precision > 0 ? o.precision : auto_precision(c, to_nm);
  for (size_t s = 0; s < c.species_sizes.size(); ++s) r.species.push_back("S" + std::to_string(s));

  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(o.output, ec);
  if (ec || !fs::is_directory(o.output))
    throw OutputError("cannot create output directory " + o.output +
                      (ec ? ": " + ec.message() : std::string()));
  r.xtc_path = (fs::path(o.output) / (c.name + ".xtc")).string();
  r.gro_path = (fs::path(o.output) / (c.name + ".gro")).string();

  io::TrajectoryFrame frame;
  for (int k = 0; k < 9; ++k)
    frame.box[static_cast<size_t>(k)] = static_cast<float>(c.box[k] * to_nm);
  frame.xyz.resize(static_cast<size_t>(total) * 3);

  const auto start = std::chrono::steady_clock::now();
  io::XtcWriter writer(r.xtc_path, r.natoms, static_cast<float>(r.precision));
  std::vector<float> first_frame;  // the GRO follows only once the XTC is complete
  for (int t = 0; t < c.frames; ++t) {
    const auto species = case_coordinates(c, t);
    size_t at = 0;
    for (const auto& xyz : species)
      for (float v : xyz) frame.xyz[at++] = static_cast<float>(v * to_nm);
    frame.step = t;
    frame.time = t;
    writer.write(frame);
    if (t == 0) first_frame = frame.xyz;
    if (o.progress) o.progress(t + 1, c.frames);
  }
  writer.close();
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.xtc_bytes = writer.bytes_written();
  write_gro(r.gro_path, c, r.species, first_frame, frame.box);

  r.run_args = {"run", r.xtc_path, "--top", r.gro_path};
  for (const auto& s : r.species) {
    r.run_args.push_back("--species");
    r.run_args.push_back(s + "=" + s);
  }
  // Beyond the minimum-image limit of the box it reads `run` counts every periodic image, which
  // bench's K2 (minimum image up to the farthest image in a unit cube) does not: the run
  // command stops at the limit.
  BoxMatrix written_box{};
  for (size_t k = 0; k < 9; ++k) written_box[k] = frame.box[k];
  const double limit = max_minimum_image_rmax(written_box) / to_nm;
  double r_max = c.r_max;
  if (!(r_max <= limit)) {
    r_max = limit;
    r.note =
        "r_max " + format_number(c.r_max) + " of the case exceeds the minimum-image limit " +
        format_number(limit) +
        " of its box (beyond it `pairhist run` counts every periodic image); the run command " +
        "uses " + format_number(limit) + " with the case's " + std::to_string(c.nbins) + " bins";
  }
  r.run_args.insert(r.run_args.end(),
                    {"--rmax", format_number(r_max), "--nbins", std::to_string(c.nbins)});
  if (case_is_angstrom(c)) r.run_args.insert(r.run_args.end(), {"--units", "angstrom"});
  r.run_args.insert(r.run_args.end(), {"-o", (fs::path(o.output) / (c.name + "-run")).string()});
  r.run_command = "pairhist";
  for (const auto& a : r.run_args) r.run_command += " " + shell_quote(a);
  return r;
}

}  // namespace pairhist
