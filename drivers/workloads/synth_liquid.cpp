#include "drivers/workloads/synth_liquid.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <system_error>

#include "drivers/workloads/replicated_liquid.hpp"
#include "io/common/atomic_file.hpp"
#include "io/xtc/xtc_writer.hpp"
#include "pairhist/box_setup.hpp"
#include "pairhist/errors.hpp"

namespace pairhist {
namespace {

namespace fs = std::filesystem;

constexpr double kRmax = 1.2;  // nm
constexpr int kBins = 240;

// GRO number fields are five wide; GROMACS writes numbers modulo 100,000 and so do we.
constexpr int kGroWrap = 100000;

// "%5d" for 0 <= v < 100000.
char* put_int5(char* p, int v) {
  p[4] = static_cast<char>('0' + v % 10);
  v /= 10;
  for (int k = 3; k >= 0; --k, v /= 10) p[k] = v ? static_cast<char>('0' + v % 10) : ' ';
  return p + 5;
}

// "%8.3f" with printf's exact digits, several times faster (the GRO of a 10^7-atom W1 took 6 s
// through fprintf, more than its XTC). A float times 1000 is exact in double (24 + 10 bits), and
// nearbyint rounds exact halves to even as glibc's printf does; the sign comes from the float, so
// -0.0004 prints "-0.000" like printf.
char* put_fixed8_3(char* p, float x) {
  const double q = std::nearbyint(std::fabs(double(x)) * 1000);
  if (!(q < 1e15)) return p + std::snprintf(p, 32, "%8.3f", x);  // inf, nan, absurd sizes
  auto u = static_cast<uint64_t>(q);
  char rev[24];
  int n = 0;
  for (int k = 0; k < 3; ++k, u /= 10) rev[n++] = static_cast<char>('0' + u % 10);
  rev[n++] = '.';
  do {
    rev[n++] = static_cast<char>('0' + u % 10);
    u /= 10;
  } while (u != 0);
  if (std::signbit(x)) rev[n++] = '-';
  for (int k = n; k < 8; ++k) *p++ = ' ';
  while (n > 0) *p++ = rev[--n];
  return p;
}

/// Streams the replicated topology (names from the sample, coordinates of `frame`) line by line:
/// at 10^7 atoms a Topology of per-atom strings would cost more memory than the coordinates.
void write_replicated_gro(const std::string& path, const LiquidSample& sample, int replicas,
                          const io::TrajectoryFrame& frame) {
  const analysis::Topology& top = sample.topology;
  const size_t natoms = static_cast<size_t>(top.natoms());
  // Residue index within the sample (a new residue wherever number or name changes), so residues
  // are numbered on across replicas without relying on the sample's numbering being dense; and
  // the names field of every sample atom ("%-5.5s%5.5s"), formatted once.
  std::vector<int> residue(natoms);
  std::vector<std::array<char, 11>> names(natoms);
  int residues = 0;
  for (size_t a = 0; a < natoms; ++a) {
    if (a > 0 && (top.residue_numbers[a] != top.residue_numbers[a - 1] ||
                  top.residue_names[a] != top.residue_names[a - 1]))
      ++residues;
    residue[a] = residues;
    std::snprintf(names[a].data(), names[a].size(), "%-5.5s%5.5s", top.residue_names[a].c_str(),
                  top.atom_names[a].c_str());
  }
  ++residues;

  io::AtomicOutput out(path);
  {
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(out.temp_path().c_str(), "w"),
                                                      &std::fclose);
    if (!f) throw OutputError(path + ": cannot create the file");
    const size_t total = frame.xyz.size() / 3;
    std::fprintf(f.get(), "pairhist synth case %s: %s replicated %dx%dx%d (%s)\n%5zu\n",
                 sample.case_name.c_str(), fs::path(sample.files.xtc).filename().c_str(), replicas,
                 replicas, replicas, top.title.c_str(), total);
    std::vector<char> buf(1 << 20);
    char* p = buf.data();
    const char* flush_at = buf.data() + buf.size() - 256;  // a line is at most ~150 bytes
    size_t atom = 0;
    for (size_t r = 0; r < total / natoms; ++r) {
      for (size_t a = 0; a < natoms; ++a, ++atom) {
        const size_t resnr = r * static_cast<size_t>(residues) + residue[a] + 1;
        p = put_int5(p, static_cast<int>(resnr % kGroWrap));
        p = std::copy_n(names[a].data(), 10, p);
        p = put_int5(p, static_cast<int>((atom + 1) % kGroWrap));
        for (size_t d = 0; d < 3; ++d) p = put_fixed8_3(p, frame.xyz[3 * atom + d]);
        *p++ = '\n';
        if (p >= flush_at) {
          std::fwrite(buf.data(), 1, static_cast<size_t>(p - buf.data()), f.get());
          p = buf.data();
        }
      }
    }
    std::fwrite(buf.data(), 1, static_cast<size_t>(p - buf.data()), f.get());
    const auto& b = frame.box;
    std::fprintf(f.get(), "%10.5f%10.5f%10.5f", b[0], b[4], b[8]);
    if (b[1] != 0 || b[2] != 0 || b[3] != 0 || b[5] != 0 || b[6] != 0 || b[7] != 0)
      std::fprintf(f.get(), "%10.5f%10.5f%10.5f%10.5f%10.5f%10.5f", b[1], b[2], b[3], b[5], b[6],
                   b[7]);
    std::fprintf(f.get(), "\n");
    if (std::ferror(f.get()) || std::fclose(f.release()) != 0)
      throw OutputError(path + ": write failed (disk full?)");
  }
  out.commit();
}

std::string format_number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

}  // namespace

SynthResult synth_liquid_case(const SynthOptions& o) {
  const std::string& name = o.case_name;
  if (o.n < 0) throw UsageError("--n must be >= 0");
  if (o.replicas < 0) throw UsageError("--replicas must be >= 1");
  if (o.n > 0 && o.replicas > 0) throw UsageError("give --n or --replicas, not both");
  if (o.frames < 0) throw UsageError("--frames must be >= 0");
  if (o.precision < 0 || !std::isfinite(o.precision))
    throw UsageError("--precision must be positive (0: 1000 per nm for " + name + ")");

  const LiquidSample sample =
      load_liquid_sample(name, find_liquid_sample(name, {o.sample_xtc, o.sample_gro}));
  SynthResult r;
  r.replicas = o.replicas > 0
                   ? o.replicas
                   : replicas_for_atoms(o.n > 0 ? o.n : kLiquidDefaultAtoms, sample.natoms());
  r.natoms = replicated_atoms(sample, r.replicas);
  r.frames = o.frames > 0 ? o.frames : static_cast<int>(sample.frames.size());
  r.precision = o.precision > 0 ? o.precision : 1000;
  for (const auto& s : liquid_species(sample.topology)) r.species.push_back(s.name);

  std::error_code ec;
  fs::create_directories(o.output, ec);
  if (ec || !fs::is_directory(o.output))
    throw OutputError("cannot create output directory " + o.output +
                      (ec ? ": " + ec.message() : std::string()));
  r.xtc_path = (fs::path(o.output) / (name + ".xtc")).string();
  r.gro_path = (fs::path(o.output) / (name + ".gro")).string();

  const auto start = std::chrono::steady_clock::now();
  io::XtcWriter writer(r.xtc_path, r.natoms, static_cast<float>(r.precision));
  io::TrajectoryFrame frame, first;
  // Beyond the minimum-image limit of a frame `pairhist run` counts every periodic image, a
  // different (and dearer) quantity than the case's everyday RDF: the run command stays below.
  double limit = INFINITY;
  for (int t = 0; t < r.frames; ++t) {
    replicated_frame(sample, r.replicas, t, frame);
    writer.write(frame);
    BoxMatrix box{};
    for (size_t k = 0; k < 9; ++k) box[k] = frame.box[k];
    limit = std::min(limit, max_minimum_image_rmax(box));
    // The GRO is written after the XTC (the pair appears complete or not at all).
    if (t == 0) first = frame;
    if (o.progress) o.progress(t + 1, r.frames);
  }
  writer.close();
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.xtc_bytes = writer.bytes_written();
  write_replicated_gro(r.gro_path, sample, r.replicas, first);

  double r_max = kRmax;
  if (!(r_max <= limit)) {
    r_max = limit;
    r.note = "r_max " + format_number(kRmax) + " nm exceeds the minimum-image limit " +
             format_number(limit) +
             " nm of the replicated box (beyond it `run` counts every periodic image); the run "
             "command uses the limit";
  }
  r.run_args = {"run",       r.xtc_path,
                "--top",     r.gro_path,
                "--species", "O=OW",
                "--species", "H=HW1,HW2",
                "--rmax",    format_number(r_max),
                "--nbins",   std::to_string(kBins),
                "-o",        (fs::path(o.output) / (name + "-run")).string()};
  r.run_command = "pairhist";
  for (const auto& a : r.run_args) r.run_command += " " + shell_quote(a);
  return r;
}

}  // namespace pairhist
