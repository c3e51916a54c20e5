#include "drivers/workloads/replicated_liquid.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <system_error>

#include "pairhist/errors.hpp"
#include "pairhist/settings.hpp"

#ifndef PAIRHIST_SOURCE_DATA_DIR
#define PAIRHIST_SOURCE_DATA_DIR ""
#endif

namespace pairhist {
namespace {

namespace fs = std::filesystem;

std::string sample_stem(const std::string& case_name) {
  return case_name == "W1-T" ? "nacl_dodecahedron" : "spce_water";
}

bool has_sample(const fs::path& dir, const std::string& stem) {
  std::error_code ec;
  return fs::is_regular_file(dir / (stem + ".xtc"), ec) &&
         fs::is_regular_file(dir / (stem + ".gro"), ec);
}

// build/drivers/pairhist -> <tree>/data, or an installed PREFIX/bin/pairhist ->
// PREFIX/share/pairhist/data (`relative`); empty when /proc is unavailable.
fs::path data_dir_near_executable(const fs::path& relative) {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec || exe.empty()) return {};
  return (exe.parent_path() / relative).lexically_normal();
}

}  // namespace

bool is_liquid_case(const std::string& name) {
  return name == "W1" || name == "W1-T";
}

LiquidSampleFiles find_liquid_sample(const std::string& case_name, const LiquidSampleFiles& given) {
  if (!given.xtc.empty()) {
    LiquidSampleFiles f = given;
    if (f.gro.empty()) f.gro = fs::path(f.xtc).replace_extension(".gro").string();
    return f;
  }
  if (!given.gro.empty())
    throw UsageError("--sample-top needs --sample (the trajectory it describes)");
  const std::string stem = sample_stem(case_name);
  auto files_in = [&stem](const fs::path& dir) {
    return LiquidSampleFiles{(dir / (stem + ".xtc")).string(), (dir / (stem + ".gro")).string()};
  };
  // An explicit environment setting is final: silently falling back elsewhere would hide a typo.
  if (const std::string& dir = settings().data_dir; !dir.empty()) {
    if (!has_sample(dir, stem))
      throw UsageError(case_name + " sample " + stem + ".xtc/.gro not found in PAIRHIST_DATA_DIR=" +
                       dir + " (unset it, or give --sample FILE.xtc --sample-top FILE.gro)");
    return files_in(dir);
  }
  std::string tried;
  for (const fs::path& dir :
       {data_dir_near_executable("../../data"), data_dir_near_executable("../share/pairhist/data"),
        fs::path(PAIRHIST_SOURCE_DATA_DIR)}) {
    if (dir.empty()) continue;
    if (has_sample(dir, stem)) return files_in(dir);
    tried += (tried.empty() ? "" : ", ") + dir.string();
  }
  throw UsageError(case_name + " sample " + stem + ".xtc/.gro not found (tried " + tried +
                   "); set PAIRHIST_DATA_DIR to the repository's data/ or give --sample FILE.xtc "
                   "--sample-top FILE.gro");
}

LiquidSample load_liquid_sample(const std::string& case_name, const LiquidSampleFiles& files) {
  LiquidSample s;
  s.case_name = case_name;
  s.files = files;
  auto reader = io::open_trajectory(files.xtc);  // first: a wrong --sample is the likelier slip
  s.topology = io::read_gro(files.gro);
  if (reader->natoms() != s.topology.natoms())
    throw InputError(files.xtc + ": " + std::to_string(reader->natoms()) +
                     " atoms per frame, but " + files.gro + " has " +
                     std::to_string(s.topology.natoms()));
  io::TrajectoryFrame f;
  while (reader->next(f)) {
    if (std::all_of(f.box.begin(), f.box.end(), [](float v) { return v == 0; }))
      throw InputError(files.xtc + ": frame " + std::to_string(s.frames.size()) +
                       " has no periodic box, which replication needs");
    s.frames.push_back(f);
  }
  if (s.frames.empty()) throw InputError(files.xtc + ": no frames");
  return s;
}

int replicas_for_atoms(int64_t atoms, int sample_atoms) {
  if (atoms <= 0 || sample_atoms <= 0) return 1;
  const double n = std::cbrt(static_cast<double>(atoms) / sample_atoms);
  return std::max(1, static_cast<int>(std::lround(n)));
}

int replicated_atoms(const LiquidSample& sample, int replicas) {
  if (replicas < 1) throw UsageError("--replicas must be at least 1");
  // In double: the exact product could overflow 64 bits for absurd replica counts.
  const double total = std::pow(double(replicas), 3) * sample.natoms();
  constexpr int kLimit = std::numeric_limits<int>::max() / 3;
  if (total > kLimit) {
    char msg[256];
    std::snprintf(msg, sizeof msg,
                  "%s with %d^3 replicas is %.4g atoms, more than one frame can hold (%d)",
                  sample.case_name.c_str(), replicas, total, kLimit);
    throw UsageError(msg);
  }
  return static_cast<int>(total);
}

std::array<float, 9> replicated_box(const std::array<float, 9>& box, int replicas) {
  std::array<float, 9> out{};
  for (size_t k = 0; k < 9; ++k) out[k] = static_cast<float>(double(box[k]) * replicas);
  return out;
}

void replicate_coordinates(const io::TrajectoryFrame& frame, int replicas,
                           const std::vector<int>* atoms, std::vector<float>& out) {
  const size_t count = atoms ? atoms->size() : frame.xyz.size() / 3;
  const size_t images = size_t(replicas) * replicas * replicas;
  out.resize(images * count * 3);
  // The sample's coordinates in double, gathered once, so the per-image loop is a plain add.
  std::vector<double> base(count * 3);
  for (size_t a = 0; a < count; ++a) {
    const size_t src = atoms ? static_cast<size_t>((*atoms)[a]) : a;
    for (size_t d = 0; d < 3; ++d) base[3 * a + d] = frame.xyz[3 * src + d];
  }
  const auto& b = frame.box;
  float* dst = out.data();
  for (int k = 0; k < replicas; ++k)
    for (int j = 0; j < replicas; ++j)
      for (int i = 0; i < replicas; ++i) {
        double shift[3];
        for (size_t d = 0; d < 3; ++d)
          shift[d] = double(i) * b[d] + double(j) * b[3 + d] + double(k) * b[6 + d];
        for (size_t a = 0; a < count; ++a, dst += 3) {
          dst[0] = static_cast<float>(base[3 * a] + shift[0]);
          dst[1] = static_cast<float>(base[3 * a + 1] + shift[1]);
          dst[2] = static_cast<float>(base[3 * a + 2] + shift[2]);
        }
      }
}

void replicated_frame(const LiquidSample& sample, int replicas, int t, io::TrajectoryFrame& out) {
  const io::TrajectoryFrame& in = sample.frame(t);
  const io::TrajectoryFrame& f0 = sample.frames.front();
  const bool spaced = sample.frames.size() > 1;
  const int64_t dstep = spaced ? sample.frames[1].step - f0.step : 1;
  const double dtime = spaced ? sample.frames[1].time - f0.time : 1;
  out.step = f0.step + int64_t(t) * dstep;
  out.time = f0.time + t * dtime;
  out.box = replicated_box(in.box, replicas);
  out.precision = 0;
  replicate_coordinates(in, replicas, nullptr, out.xyz);
}

std::vector<LiquidSpecies> liquid_species(const analysis::Topology& topology) {
  std::vector<LiquidSpecies> species = {{"O", {"OW"}, {}}, {"H", {"HW1", "HW2"}, {}}};
  for (int a = 0; a < topology.natoms(); ++a)
    for (auto& s : species)
      if (std::find(s.atom_names.begin(), s.atom_names.end(),
                    topology.atom_names[static_cast<size_t>(a)]) != s.atom_names.end())
        s.atoms.push_back(a);
  for (const auto& s : species)
    if (s.atoms.empty())
      throw InputError("the liquid sample has no atoms named " + s.atom_names.front() +
                       (s.atom_names.size() > 1 ? " or " + s.atom_names.back() : "") +
                       " (species " + s.name + " of the W1 cases)");
  return species;
}

}  // namespace pairhist
