// `pairhist run` under mpirun: 1 to 4 ranks (more ranks than this machine's cores: they share
// them) must write the very files a single process writes, bit for bit: the water sample, the
// NaCl dodecahedron in double precision, dynamic species (with same-residue exclusions, whole
// frames and frame parts), one frame split into parts over the ranks (all pairs and cell lists),
// --interval blocks; and a bad frame on any rank or a rank that dies must end
// the whole job with one line on rank 0 within a bounded time.
#include <doctest/doctest.h>
#include <hdf5.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "tests/child_process.hpp"
#include "tests/cli_runner.hpp"
#include "tests/test_paths.hpp"

namespace fs = std::filesystem;
using pairhist::test::Child;
using pairhist::test::ChildEnd;
using pairhist::test::CliScratch;

namespace {

const std::string kWaterXtc = pairhist::test::data_dir() + "/spce_water.xtc";
const std::string kWaterGro = pairhist::test::data_dir() + "/spce_water.gro";
const std::string kNaclXtc = pairhist::test::data_dir() + "/nacl_dodecahedron.xtc";
const std::string kNaclGro = pairhist::test::data_dir() + "/nacl_dodecahedron.gro";

/// The MPI launcher found at configure time; PAIRHIST_MPIEXEC names another (the GPU suite's).
std::string mpiexec() {
  return pairhist::test::env_or("PAIRHIST_MPIEXEC", PAIRHIST_MPIEXEC);
}

/// `pairhist ARGS` under `mpirun -n RANKS` (ranks may share cores), waited for at most
/// `seconds`. `tag` marks the ranks' environment so a test can find one of them.
/// `pairhist ARGS` as `ranks` ranks; `wrapper`: a command each rank runs pairhist through.
ChildEnd run_mpi(int ranks, std::vector<std::string> args, const CliScratch& scratch,
                 double seconds = 120, const std::string& tag = "",
                 const std::vector<std::string>& wrapper = {}) {
  std::vector<std::string> argv = {mpiexec(), "-n", std::to_string(ranks), "--oversubscribe"};
  if (!tag.empty()) argv.insert(argv.end(), {"-x", "PAIRHIST_TEST_TAG=" + tag});
  argv.insert(argv.end(), wrapper.begin(), wrapper.end());
  argv.push_back(pairhist::test::pairhist_binary());
  argv.insert(argv.end(), args.begin(), args.end());
  Child c(argv, scratch.dir.string(), 0, Child::Program{});
  return c.wait(seconds);
}

ChildEnd run_one(std::vector<std::string> args, const CliScratch& scratch) {
  return pairhist::test::run_child(args, scratch.dir.string());
}

/// Every dataset of a pairhist.h5 (histograms, radii, frame indices and times, volumes, g(r),
/// ...) as its bytes in the file's own type.
std::map<std::string, std::vector<char>> datasets(const std::string& file) {
  std::map<std::string, std::vector<char>> all;
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  REQUIRE_MESSAGE(f >= 0, file);
  auto visit = [](hid_t obj, const char* name, const H5O_info_t* info, void* data) -> herr_t {
    if (info->type != H5O_TYPE_DATASET) return 0;
    const hid_t d = H5Dopen2(obj, name, H5P_DEFAULT);
    const hid_t type = H5Dget_type(d);
    const hid_t space = H5Dget_space(d);
    const auto n = static_cast<size_t>(H5Sget_simple_extent_npoints(space));
    std::vector<char> bytes(n * H5Tget_size(type));
    if (H5Tget_class(type) != H5T_STRING && !bytes.empty())
      H5Dread(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, bytes.data());
    (*static_cast<std::map<std::string, std::vector<char>>*>(data))[name] = bytes;
    H5Sclose(space);
    H5Tclose(type);
    H5Dclose(d);
    return 0;
  };
  H5Ovisit(f, H5_INDEX_NAME, H5_ITER_INC, visit, &all);
  H5Fclose(f);
  return all;
}

void check_identical(const fs::path& serial, const fs::path& ranks) {
  const auto a = datasets((serial / "pairhist.h5").string());
  const auto b = datasets((ranks / "pairhist.h5").string());
  REQUIRE(a.size() == b.size());
  size_t histograms = 0;
  for (const auto& [name, bytes] : a) {
    INFO(name);
    REQUIRE(b.count(name) == 1);
    CHECK(b.at(name) == bytes);
    histograms += name.find("/histograms/") != std::string::npos;
  }
  CHECK(histograms > 0);
  // The text outputs too (rdf.csv holds the counts and, with intervals, the error bars).
  CHECK(CliScratch::slurp((serial / "rdf.csv").string()) ==
        CliScratch::slurp((ranks / "rdf.csv").string()));
}

/// The run `args(out)` as one process and as each number of `ranks`: the same files, bit for bit.
template <class Args>
void same_as_one_process(const CliScratch& s, Args args, std::initializer_list<int> ranks) {
  const ChildEnd one = run_one(args(s.file("serial")), s);
  INFO(one.err);
  REQUIRE(one.exited(0));
  for (int n : ranks) {
    INFO(n << " ranks");
    const ChildEnd end = run_mpi(n, args(s.file("r" + std::to_string(n))), s);
    INFO(end.err);
    REQUIRE(end.exited(0));
    check_identical(s.file("serial"), s.file("r" + std::to_string(n)));
  }
}

std::vector<std::string> water(const std::string& out) {
  return {"run",       kWaterXtc,   "--top",  kWaterGro, "--species", "O=OW",
          "--species", "H=HW1,HW2", "--rmax", "1.2",     "--nbins",   "240",
          "-o",        out,         "-q",     "--ncpu",  "1"};
}

/// The pid of rank `rank` of the mpirun whose ranks carry PAIRHIST_TEST_TAG=tag (0: none yet).
pid_t find_rank(const std::string& tag, int rank) {
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string pid = entry.path().filename().string();
    if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(entry.path() / "environ", std::ios::binary);
    std::string env((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    bool tagged = false, ranked = false;
    size_t at = 0;
    while (at < env.size()) {
      const std::string var = env.substr(at, env.find('\0', at) - at);
      tagged |= var == "PAIRHIST_TEST_TAG=" + tag;
      ranked |= var == "OMPI_COMM_WORLD_RANK=" + std::to_string(rank);
      at += var.size() + 1;
    }
    if (tagged && ranked) return static_cast<pid_t>(std::stol(pid));
  }
  return 0;
}

}  // namespace

TEST_CASE("1 to 4 ranks write a single process's files, bit for bit, --interval blocks too") {
  CliScratch s("mpi-water");
  auto serial = water(s.file("serial"));
  serial.insert(serial.end(), {"--interval", "30"});
  REQUIRE(run_one(serial, s).exited(0));
  for (int ranks = 1; ranks <= 4; ++ranks) {
    INFO(ranks << " ranks");
    const std::string out = s.file("ranks" + std::to_string(ranks));
    auto args = water(out);
    // Two decoding threads deliver columns, which the ranks' engines take over without a copy.
    args.insert(args.end(), {"--interval", "30", "--decode-threads", ranks % 2 ? "1" : "2"});
    const ChildEnd end = run_mpi(ranks, args, s);
    INFO(end.err);
    REQUIRE(end.exited(0));
    check_identical(s.file("serial"), out);
  }
  // One block (no --interval): every frame's record goes through the one reduction at the end.
  REQUIRE(run_one(water(s.file("serial-whole")), s).exited(0));
  const ChildEnd end = run_mpi(3, water(s.file("ranks-whole")), s);
  INFO(end.err);
  REQUIRE(end.exited(0));
  check_identical(s.file("serial-whole"), s.file("ranks-whole"));
}

TEST_CASE("The NaCl dodecahedron in double precision: 2 and 3 ranks equal one process") {
  CliScratch s("mpi-nacl");
  auto args = [&](const std::string& out) {
    return std::vector<std::string>{"run",    kNaclXtc,    "--top",   kNaclGro,     "--species",
                                    "OW=OW",  "--species", "NA=NA",   "--species",  "CL=CL",
                                    "--rmax", "1.5",       "--nbins", "300",        "--precision",
                                    "double", "-o",        out,       "--interval", "25",
                                    "-q",     "--ncpu",    "1"};
  };
  same_as_one_process(s, args, {2, 3});
}

TEST_CASE("Periodic images as the run's first frame decides, on every rank") {
  // Frame 45 of the water sample allows r_max 1.4815 nm, frames 46-60 at least 1.4826 nm: at
  // r_max 1.482 the run's first frame needs every image and the others do not. One process counts
  // them all with images; so must every rank, whatever frame it counts first (the two ways
  // round differently).
  CliScratch s("mpi-images");
  auto args = [&](const std::string& out) {
    return std::vector<std::string>{"run",     kWaterXtc,    "--top",     kWaterGro, "--species",
                                    "O=OW",    "--species",  "H=HW1,HW2", "--rmax",  "1.482",
                                    "--nbins", "296",        "--first",   "45",      "--last",
                                    "60",      "--interval", "4",         "-o",      out,
                                    "-q",      "--ncpu",     "1"};
  };
  same_as_one_process(s, args, {2, 3});
}

TEST_CASE("Dynamic species: each rank selects its frames' atoms, rank 0 gets every frame's sizes") {
  CliScratch s("mpi-dynamic");
  // Species whose atoms change per frame (within, around), one sharing atoms with a static one,
  // and the excluded pairs of same-residue atoms among each frame's selected ones: the per-frame
  // sizes and pairs in pairhist.h5 and g(r) must be one process's, bit for bit.
  auto args = [&](const std::string& out) {
    return std::vector<std::string>{"run",       kNaclXtc,
                                    "--top",     kNaclGro,
                                    "--species", "OW=OW",
                                    "--species", "W=name OW HW1 and within 0.5 of name NA",
                                    "--species", "S=around 0.35 name CL",
                                    "--exclude", "residue",
                                    "--rmax",    "1.0",
                                    "--nbins",   "200",
                                    "-o",        out,
                                    "-q",        "--ncpu",
                                    "1"};
  };
  auto serial = args(s.file("serial"));
  serial.insert(serial.end(), {"--interval", "9"});
  REQUIRE(run_one(serial, s).exited(0));
  REQUIRE(run_one(args(s.file("serial-whole")), s).exited(0));
  // The per-frame records are there to compare (check_identical compares every dataset).
  const auto names = datasets(s.file("serial") + "/pairhist.h5");
  CHECK(names.count("pairhist/frame_pairs/W,S") == 1);
  CHECK(names.count("pairhist/frame_species_counts/W") == 1);
  for (int ranks : {2, 3}) {
    INFO(ranks << " ranks, --interval 9");
    const std::string out = s.file("r" + std::to_string(ranks));
    auto a = args(out);
    a.insert(a.end(), {"--interval", "9"});
    const ChildEnd end = run_mpi(ranks, a, s);
    INFO(end.err);
    REQUIRE(end.exited(0));
    check_identical(s.file("serial"), out);
  }
  // Frames split into parts: every rank holding a part selects the frame's atoms alike, the
  // first part's rank alone reports its sizes.
  const std::string out = s.file("parts");
  auto a = args(out);
  a.insert(a.end(), {"--frame-parts", "4", "--report", out + ".json"});
  const ChildEnd end = run_mpi(3, a, s);
  INFO(end.err);
  REQUIRE(end.exited(0));
  check_identical(s.file("serial-whole"), out);
  CHECK(CliScratch::slurp(out + ".json").find("\"units\": 0") == std::string::npos);
}

TEST_CASE("Ranks that began long after their launcher: the summary says so") {
  // mpirun discovering the machine before it starts the ranks (1.2 s on a 4-GPU node) lies
  // outside every rank's clock. Here each rank's parent, a shell, waits 0.5 s before starting
  // pairhist: the report gives each rank's delay, and the summary names the launcher's start.
  CliScratch s("mpi-launcher");
  REQUIRE(
      run_one({"synth", "--case", "K1", "--n", "2000", "--frames", "2", "-o", s.file("k1"), "-q"},
              s)
          .exited(0));
  const std::string out = s.file("run");
  const ChildEnd end = run_mpi(
      2,
      {"run", s.file("k1/K1.xtc"), "--top", s.file("k1/K1.gro"), "--species", "A=S0", "--rmax",
       "1.7320508", "--nbins", "200", "--ncpu", "1", "-o", out, "--report", out + ".json"},
      s, 120, "", {"/bin/sh", "-c", "sleep 0.5; \"$0\" \"$@\""});
  INFO(end.err);
  REQUIRE(end.exited(0));
  CHECK(end.out.find("launcher      : the last rank began") != std::string::npos);
  const std::string report = CliScratch::slurp(out + ".json");
  int ranks = 0;
  for (size_t at = report.find("\"after_launcher_seconds\": "); at != std::string::npos;
       at = report.find("\"after_launcher_seconds\": ", at + 1)) {
    CHECK(std::atof(report.c_str() + at + 26) >= 0.4);
    ++ranks;
  }
  CHECK(ranks == 2);
}

TEST_CASE("One frame split into parts over the ranks: all pairs and cell lists") {
  CliScratch s("mpi-split");
  // One frame of K1-like points without a box (all pairs), and one frame of replicated water
  // (cell lists): each counted by one process, then in parts by 2 and 3 ranks.
  REQUIRE(
      run_one({"synth", "--case", "K1", "--n", "30000", "--frames", "1", "-o", s.file("k1"), "-q"},
              s)
          .exited(0));
  REQUIRE(run_one({"synth", "--case", "W1", "--replicas", "2", "--frames", "1", "-o", s.file("w1"),
                   "-q"},
                  s)
              .exited(0));
  struct Case {
    std::string name;
    std::vector<std::string> args;
  };
  const std::vector<Case> cases = {
      {"k1",
       {"run", s.file("k1/K1.xtc"), "--top", s.file("k1/K1.gro"), "--species", "A=S0", "--rmax",
        "1.7320508", "--nbins", "2000", "--algorithm", "all-pairs"}},
      {"w1",
       {"run", s.file("w1/W1.xtc"), "--top", s.file("w1/W1.gro"), "--species", "O=OW", "--species",
        "H=HW1,HW2", "--rmax", "1.2", "--nbins", "240", "--algorithm", "cell-list"}}};
  for (const Case& c : cases) {
    INFO(c.name);
    auto serial = c.args;
    serial.insert(serial.end(), {"-o", s.file(c.name + "-serial"), "-q", "--ncpu", "1"});
    REQUIRE(run_one(serial, s).exited(0));
    for (int ranks : {2, 3}) {
      INFO(ranks << " ranks");
      const std::string out = s.file(c.name + "-r" + std::to_string(ranks));
      auto args = c.args;
      args.insert(args.end(),
                  {"-o", out, "--ncpu", "1", "--frame-parts", "5", "--report", out + ".json"});
      const ChildEnd end = run_mpi(ranks, args, s);
      INFO(end.err);
      REQUIRE(end.exited(0));
      check_identical(s.file(c.name + "-serial"), out);
      // The one frame went out in its 5 parts, each counted once, by whichever ranks claimed
      // them. A rank whose pace is not known holds at most an even share of what is left
      // (FrameDispenser::holds_its_share; before it, on the 2-GPU node one rank's decoding
      // threads took all 5 in 2- and 3-rank runs), but a rank that has taken its share into
      // counting may take the rest before a rank still starting asks: a rank may get none.
      const std::string report = CliScratch::slurp(out + ".json");
      CHECK(report.find("\"frame_parts\": 5") != std::string::npos);
      int units = 0, counted = 0;
      for (size_t at = report.find("\"units\": "); at != std::string::npos;
           at = report.find("\"units\": ", at + 1)) {
        units += std::atoi(report.c_str() + at + 9);
        ++counted;
      }
      CHECK(counted == ranks);
      CHECK(units == 5);
      // Every rank's start, on its own process's clock.
      int marks = 0;
      for (size_t at = report.find("\"start_marks_seconds\""); at != std::string::npos;
           at = report.find("\"start_marks_seconds\"", at + 1))
        ++marks;
      CHECK(marks == ranks + 1);  // and the run's own (rank 0's)
    }
    // Decoding threads deliver the species as columns, which an engine takes over without a
    // copy for whole frames only: of 5 parts over 2 ranks, one rank counts 3 or more, and its
    // units after the first are parts of the same frame again, in the same columns. (The
    // threads claim units ahead, so a rank may get none: no check of that here.)
    const std::string out = s.file(c.name + "-columns");
    auto args = c.args;
    args.insert(args.end(),
                {"-o", out, "--ncpu", "1", "--frame-parts", "5", "--decode-threads", "2"});
    const ChildEnd end = run_mpi(2, args, s);
    INFO(end.err);
    REQUIRE(end.exited(0));
    check_identical(s.file(c.name + "-serial"), out);
  }
}

TEST_CASE("A damaged trajectory ends every rank with rank 0's one-line error") {
  CliScratch s("mpi-damaged");
  std::string bytes = CliScratch::slurp(kWaterXtc);
  {
    // Frame 67's magic number broken (every frame starts with 1995 and the atom count), with
    // frames after it: an error, where a file cut there gives the frames before it (below).
    const std::string head = bytes.substr(0, 8);
    size_t at = 0;
    for (int k = 0; k < 67; ++k) at = bytes.find(head, at + 1);
    REQUIRE(at != std::string::npos);
    bytes[at] = '\x7f';
    std::ofstream damaged(s.file("damaged.xtc"), std::ios::binary);
    damaged.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  auto args = [&](const std::string& out) {
    auto a = water(out);
    a[1] = s.file("damaged.xtc");
    a.insert(a.end(), {"--interval", "10"});
    return a;
  };
  const ChildEnd one = run_one(args(s.file("serial")), s);
  REQUIRE(one.exited(1));
  const auto start = std::chrono::steady_clock::now();
  const ChildEnd end = run_mpi(3, args(s.file("ranks")), s, 60);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(60));
  INFO(end.err);
  CHECK(end.exit_code != 0);
  // The same message (file, frame, problem) as one process, once.
  const auto line = [](const std::string& err) {
    const auto at = err.find("pairhist: error: ");
    return at == std::string::npos ? std::string() : err.substr(at, err.find('\n', at) - at);
  };
  REQUIRE(!line(one.err).empty());
  CHECK(line(end.err) == line(one.err));
  CHECK(line(end.err).find("frame 67") != std::string::npos);
  CHECK(end.err.find("pairhist: error:") == end.err.rfind("pairhist: error:"));
  // The complete intervals before the bad frame, kept as one process keeps them.
  check_identical(s.file("serial"), s.file("ranks"));
}

TEST_CASE("A trajectory cut inside a frame: the ranks count the frames before it, as one process") {
  CliScratch s("mpi-truncated");
  const std::string bytes = CliScratch::slurp(kWaterXtc);
  {
    std::ofstream cut(s.file("cut.xtc"), std::ios::binary);
    cut.write(bytes.data(), static_cast<std::streamsize>(bytes.size() * 2 / 3));  // in frame 67
  }
  auto args = [&](const std::string& out) {
    auto a = water(out);
    a[1] = s.file("cut.xtc");
    a.insert(a.end(), {"--interval", "10"});
    return a;
  };
  const ChildEnd one = run_one(args(s.file("serial")), s);
  INFO(one.err);
  REQUIRE(one.exited(0));
  const ChildEnd end = run_mpi(3, args(s.file("ranks")), s, 60);
  INFO(end.err);
  REQUIRE(end.exited(0));
  const std::string warning =
      "warning: incomplete frame, the file ends inside it: " + s.file("cut.xtc") + ": frame 67: ";
  CHECK(one.err.find(warning) != std::string::npos);
  CHECK(end.err.find(warning) != std::string::npos);
  // Frames 0-66, their intervals and the mark (complete = 0, stopped_by the frame's error).
  check_identical(s.file("serial"), s.file("ranks"));
  CHECK(CliScratch::slurp(s.file("ranks") + "/rdf.csv")
            .find("# stopped_by = " + s.file("cut.xtc") + ": frame 67: ") != std::string::npos);
}

TEST_CASE("A trajectory that fails before its first frame: the ranks give one process's error") {
  // Rank 0 reads the first frame while the topology loads; its errors are still the plan's.
  CliScratch s("mpi-first-frame");
  const std::string bytes = CliScratch::slurp(kWaterXtc);
  {
    std::ofstream damaged(s.file("damaged.xtc"), std::ios::binary);
    damaged.write("not an XTC file, not at all", 27);
    damaged.write(bytes.data(), static_cast<std::streamsize>(bytes.size() / 2));
  }
  const auto line = [](const std::string& err) {
    const auto at = err.find("pairhist: error: ");
    return at == std::string::npos ? std::string() : err.substr(at, err.find('\n', at) - at);
  };
  for (const std::string name : {"damaged.xtc", "missing.xtc"}) {
    CAPTURE(name);
    auto args = water(s.file("serial-" + name));
    args[1] = s.file(name);
    const ChildEnd one = run_one(args, s);
    REQUIRE(one.exited(1));
    args = water(s.file("ranks-" + name));
    args[1] = s.file(name);
    const ChildEnd end = run_mpi(2, args, s, 60);
    INFO(end.err);
    CHECK(end.exit_code == 1);
    REQUIRE(!line(one.err).empty());
    CHECK(line(end.err) == line(one.err));
    CHECK(end.err.find("pairhist: error:") == end.err.rfind("pairhist: error:"));
    CHECK_FALSE(std::filesystem::exists(s.file("ranks-" + name) + "/rdf.csv"));
  }
}

TEST_CASE("A rank killed mid-run ends the job with one line naming it and its frames") {
  CliScratch s("mpi-killed");
  REQUIRE(run_one({"synth", "--case", "W1", "--replicas", "2", "--frames", "40", "-o", s.file("w1"),
                   "-q"},
                  s)
              .exited(0));
  const std::string out = s.file("out");
  const std::vector<std::string> args = {"run",         s.file("w1/W1.xtc"),
                                         "--top",       s.file("w1/W1.gro"),
                                         "--species",   "O=OW",
                                         "--rmax",      "1.2",
                                         "--nbins",     "240",
                                         "--algorithm", "all-pairs",
                                         "-o",          out,
                                         "--ncpu",      "1",
                                         "--interval",  "2",
                                         "-q"};
  const std::string tag = "killed-" + std::to_string(getpid());
  std::vector<std::string> argv = {mpiexec(),
                                   "-n",
                                   "3",
                                   "--oversubscribe",
                                   "-x",
                                   "PAIRHIST_TEST_TAG=" + tag,
                                   pairhist::test::pairhist_binary()};
  argv.insert(argv.end(), args.begin(), args.end());
  Child job(argv, s.dir.string(), 0, Child::Program{});
  // Once the first interval is on disk, rank 2 dies.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!fs::exists(fs::path(out) / "pairhist.h5") && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  REQUIRE(fs::exists(fs::path(out) / "pairhist.h5"));
  const pid_t victim = find_rank(tag, 2);
  REQUIRE(victim > 0);
  const auto killed = std::chrono::steady_clock::now();
  kill(victim, SIGKILL);
  const ChildEnd end = job.wait(60);
  CHECK(std::chrono::steady_clock::now() - killed < std::chrono::seconds(60));
  INFO(end.err);
  CHECK(end.exit_code != 0);
  CHECK(end.err.find("pairhist: error: rank 2") != std::string::npos);
  CHECK(end.err.find("while counting frames") != std::string::npos);
  CHECK(end.err.find("W1.xtc") != std::string::npos);
  // The intervals completed before are kept, whole, and say they are not a finished run.
  CHECK(fs::exists(fs::path(out) / "rdf.csv"));
  CHECK(CliScratch::slurp((fs::path(out) / "rdf.csv").string()).find("# complete = 0") !=
        std::string::npos);
}
