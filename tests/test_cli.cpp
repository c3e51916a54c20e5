// The `pairhist` command end to end on the bundled sample, and its behaviour on bad input.
#include <doctest/doctest.h>
#include <hdf5.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tests/h5_counts.hpp"
#include "tests/test_paths.hpp"

namespace fs = std::filesystem;

namespace {

const std::string kData = pairhist::test::data_dir();
const std::string kXtc = kData + "/spce_water.xtc";
const std::string kGro = kData + "/spce_water.gro";

struct Result {
  int status = -1;
  std::string out;
  std::string err;
};

/// Runs pairhist with the given arguments (a shell string), capturing stdout and stderr.
Result run_pairhist(const std::string& args, const fs::path& scratch) {
  const fs::path out = scratch / "stdout.txt", err = scratch / "stderr.txt";
  const std::string cmd =
      pairhist::test::pairhist_binary() + " " + args + " >" + out.string() + " 2>" + err.string();
  const int raw = std::system(cmd.c_str());
  Result r;
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  std::ifstream o(out), e(err);
  std::stringstream so, se;
  so << o.rdbuf();
  se << e.rdbuf();
  r.out = so.str();
  r.err = se.str();
  return r;
}

fs::path scratch_dir(const char* name) {
  const fs::path d =
      fs::temp_directory_path() / ("pairhist-cli-" + std::to_string(getpid()) + "-" + name);
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

/// A copy of `xtc` whose frame `k` has a broken magic number (every frame starts with 1995 and
/// the atom count), the frames after it intact: damage, not a file cut short.
void write_damaged_frame(const std::string& xtc, int k, const fs::path& to) {
  std::ifstream in(xtc, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), {});
  const std::string head = bytes.substr(0, 8);
  size_t at = 0;
  for (int f = 0; f < k; ++f) at = bytes.find(head, at + 1);
  REQUIRE(at != std::string::npos);
  bytes[at] = '\x7f';
  std::ofstream(to, std::ios::binary)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

int count_lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

/// Columns of a CSV with '#' comments: header names, then rows.
struct Csv {
  std::vector<std::string> names;
  std::vector<std::vector<double>> rows;
  int column(const std::string& name) const {
    for (size_t i = 0; i < names.size(); ++i)
      if (names[i] == name) return static_cast<int>(i);
    return -1;
  }
};

Csv read_csv(const fs::path& path) {
  Csv csv;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::stringstream ss(line);
    std::vector<std::string> cells;
    for (std::string cell; std::getline(ss, cell, ',');) cells.push_back(cell);
    if (csv.names.empty()) {
      csv.names = cells;
      continue;
    }
    std::vector<double> row;
    for (const auto& c : cells) row.push_back(std::stod(c));
    csv.rows.push_back(row);
  }
  return csv;
}

uint64_t parse_after(const std::string& text, const std::string& key) {
  const auto pos = text.find(key);
  REQUIRE(pos != std::string::npos);
  return std::stoull(text.substr(pos + key.size()));
}

/// `run --task-trace`: one row per task in submission order, every frame present, the pairs add
/// up to the run's, every span after its frame was handed over.
void check_task_trace(const fs::path& path, uint64_t frames, uint64_t pairs) {
  std::ifstream in(path);
  std::string line;
  REQUIRE(std::getline(in, line));
  CHECK(line ==
        "rank,order,frame,worker,kind,device,start_s,end_s,pairs,grouped,frame_begin_s,"
        "frame_allocated_s,frame_free_s,frame_submitted_s,frame_filled_s");
  std::vector<bool> seen(frames, false);
  uint64_t total = 0, rows = 0;
  unsigned long long last_order = 0;
  while (std::getline(in, line)) {
    unsigned long long order, frame, task_pairs;
    int rank, worker, device, grouped;
    char kind[8] = {};
    double start, end, begin, allocated, free, submitted, filled;
    REQUIRE(std::sscanf(line.c_str(),
                        "%d,%llu,%llu,%d,%7[a-z],%d,%lf,%lf,%llu,%d,%lf,%lf,%lf,%lf,%lf", &rank,
                        &order, &frame, &worker, kind, &device, &start, &end, &task_pairs, &grouped,
                        &begin, &allocated, &free, &submitted, &filled) == 15);
    CHECK(rank == 0);
    if (rows++ > 0) CHECK(order > last_order);
    last_order = order;
    REQUIRE(frame < frames);
    seen[frame] = true;
    const bool cpu = std::string(kind) == "cpu", cuda = std::string(kind) == "cuda";
    CHECK(((cpu && device == -1) || (cuda && device >= 0)));
    CHECK(0 <= begin);
    CHECK(begin <= allocated);
    CHECK(allocated <= free);
    CHECK(free <= filled);
    CHECK(filled <= submitted);
    CHECK(free <= start);  // a task runs once its frame's buffers are filled
    CHECK(start <= end);
    total += task_pairs;
  }
  CHECK(rows >= frames);
  CHECK(std::count(seen.begin(), seen.end(), false) == 0);
  CHECK(total == pairs);
}

}  // namespace

TEST_CASE("pairhist --help and run --help describe the command") {
  const fs::path d = scratch_dir("help");
  Result r = run_pairhist("--help", d);
  CHECK(r.status == 0);
  CHECK(r.out.find("run") != std::string::npos);
  r = run_pairhist("run --help", d);
  CHECK(r.status == 0);
  CHECK(r.out.find("--species") != std::string::npos);
  CHECK(r.out.find("--rmax") != std::string::npos);
  fs::remove_all(d);
}

TEST_CASE("pairhist run on the SPC/E sample: O-O first peak, exact pair totals, all outputs") {
  const fs::path d = scratch_dir("sample");
  const fs::path out = d / "out";
  const Result r = run_pairhist("run " + kXtc + " --top " + kGro +
                                    " --species O=OW --species H=HW1,HW2 --rmax 1.2 --nbins 240"
                                    " -o " +
                                    out.string() + " --ncpu 2 --verbose --report " +
                                    (out / "report.json").string() + " --task-trace " +
                                    (d / "trace.csv").string(),
                                d);
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  for (const char* f : {"pairhist.h5", "rdf.csv", "rdf.xvg", "report.json"})
    CHECK(fs::exists(out / f));
  {
    std::ifstream in(out / "report.json");
    std::stringstream text;
    text << in.rdbuf();
    CHECK(text.str().find("\"tail_idle_seconds\"") != std::string::npos);
    CHECK(text.str().find("\"pairs_examined\": 35") != std::string::npos);
    CHECK(text.str().find("\"frames_in_flight\": 64") != std::string::npos);  // 32 kB frames
    CHECK(text.str().find("\"frame_bytes\": 31824") != std::string::npos);    // 2652 atoms
    // The start and the end step by step, in the order they happen (process seconds).
    const nlohmann::json report = nlohmann::json::parse(text.str());
    const nlohmann::json& start = report.at("start_marks_seconds");
    const nlohmann::json& end = report.at("end_marks_seconds");
    const double counting = start.at("counting").get<double>();
    CHECK(start.at("pipeline").get<double>() > 0);
    CHECK(start.at("pipeline").get<double>() <= start.at("trajectory_open").get<double>());
    CHECK(start.at("trajectory_open").get<double>() <= counting);
    CHECK(start.at("topology_loaded").get<double>() <= start.at("run_defined").get<double>());
    CHECK(start.at("run_defined").get<double>() <= counting);
    CHECK(start.at("gpus_ready").get<double>() <= start.at("engine_started").get<double>());
    CHECK(counting <= start.at("engine_started").get<double>());
    CHECK(counting == doctest::Approx(report.at("before_first_frame_seconds").get<double>()));
    // (two clocks: the run's steady one and the process's; 1 ms apart at most)
    CHECK(counting + report.at("seconds").get<double>() <= end.at("released").get<double>() + 1e-3);
    CHECK(end.at("released").get<double>() <= end.at("outputs_written").get<double>());
  }

  // Every pair of every frame is examined: 101 frames of 884 O and 1768 H.
  const uint64_t per_frame = 884ull * 883 / 2 + 884ull * 1768 + 1768ull * 1767 / 2;
  CHECK(parse_after(r.out, "pairs         : ") == 101 * per_frame);
  uint64_t counted = 0;
  for (const char* pair : {"O,O", "O,H", "H,H"}) {
    const auto counts = pairhist::test::h5_counts((out / "pairhist.h5").string(),
                                                  std::string("/100/histograms/") + pair);
    CHECK(counts.size() == 240);
    for (uint64_t c : counts) counted += c;
  }
  CHECK(parse_after(r.out, "examined, ") == counted);
  check_task_trace(d / "trace.csv", 101, 101 * per_frame);

  const Csv csv = read_csv(out / "rdf.csv");
  const int r_col = csv.column("r_nm"), g_col = csv.column("g_O-O");
  REQUIRE(r_col >= 0);
  REQUIRE(g_col >= 0);
  REQUIRE(csv.rows.size() == 240);
  size_t peak = 0;
  for (size_t k = 0; k < csv.rows.size(); ++k)
    if (csv.rows[k][g_col] > csv.rows[peak][g_col]) peak = k;
  MESSAGE("O-O first peak at r = " << csv.rows[peak][r_col]
                                   << " nm, g = " << csv.rows[peak][g_col]);
  CHECK(csv.rows[peak][r_col] >= 0.27);
  CHECK(csv.rows[peak][r_col] <= 0.29);
  CHECK(csv.rows[peak][g_col] >= 2.5);
  CHECK(csv.rows[peak][g_col] <= 3.5);
  // Far from the molecule, liquid water is structureless.
  CHECK(csv.rows.back()[g_col] == doctest::Approx(1.0).epsilon(0.05));
  fs::remove_all(d);
}

TEST_CASE("bad input: one-line error, non-zero exit, no output left behind") {
  const fs::path d = scratch_dir("bad");
  const fs::path out = d / "out";
  const std::string common = " -o " + out.string() + " --ncpu 1";
  struct Bad {
    std::string args;
    std::string expect;  // in the message
  };
  // A copy of the sample whose frame 10 is damaged, with frames after it (a file cut inside a
  // frame is no error: its frames before it are counted, test_cli_frames_end).
  const fs::path damaged = d / "damaged.xtc";
  write_damaged_frame(kXtc, 10, damaged);
  const std::vector<Bad> cases = {
      {"run " + (d / "missing.xtc").string() + " --top " + kGro +
           " --species O=OW --rmax 1 --nbins 10",
       "missing.xtc"},
      {"run " + kXtc + " --top " + kGro + " --species X=NOSUCH --rmax 1 --nbins 10", "NOSUCH"},
      {"run " + kXtc + " --top " + kGro + " --species O=OW --rmax 1 --bin -0.1", "--bin"},
      {"run " + kXtc + " --top " + kGro + " --species O=OW --rmax -1 --nbins 10", "rmax"},
      {"run " + kXtc + " --top " + kGro + " --species O=OW --rmax 1 --nbins -5", "nbins"},
      {"run " + damaged.string() + " --top " + kGro + " --species O=OW --rmax 1 --nbins 10",
       "last complete frame is 9"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.args);
    const Result r = run_pairhist(c.args + common, d);
    CHECK(r.status != 0);
    CHECK(count_lines(r.err) == 1);
    CHECK(r.err.find(c.expect) != std::string::npos);
    CHECK(r.err.find("error") != std::string::npos);
    CHECK_FALSE(fs::exists(out));
  }
  fs::remove_all(d);
}

TEST_CASE("pairhist run reads other formats: extended XYZ and LAMMPS dump (triclinic)") {
  const fs::path d = scratch_dir("formats");
  const std::string fx = kData + "/fixtures/";
  for (const std::string& file :
       {std::string("ase_triclinic.extxyz"), std::string("lmp_triclinic.lammpstrj")}) {
    CAPTURE(file);
    const fs::path out = d / file;
    const std::string species =
        file.find("lmp") == 0 ? "--species A=1 --species B=2" : "--species A=* ";
    const Result r = run_pairhist("run " + fx + file + " --top " + fx + file + " " + species +
                                      " --rmax 0.4 --nbins 40 --ncpu 1 -o " + out.string(),
                                  d);
    INFO(r.out << r.err);
    CHECK(r.status == 0);
    CHECK(r.out.find("triclinic box") != std::string::npos);
    CHECK(fs::exists(out / "rdf.csv"));
  }
  fs::remove_all(d);
}

TEST_CASE("no periodic box: counts only, or g(r) with the volume the user gives") {
  const fs::path d = scratch_dir("volume");
  const std::string xyz = kData + "/fixtures/ase_plain.xyz";
  const std::string common =
      "run " + xyz + " --top " + xyz + " --species A=* --rmax 0.5 " + "--nbins 10 --ncpu 1 -o ";
  Result r = run_pairhist(common + (d / "counts").string(), d);
  CHECK(r.status == 0);
  CHECK(r.out.find("counts only") != std::string::npos);
  CHECK_FALSE(fs::exists(d / "counts" / "rdf.xvg"));
  r = run_pairhist(common + (d / "gr").string() + " --volume 27", d);
  INFO(r.out << r.err);
  CHECK(r.status == 0);
  CHECK(fs::exists(d / "gr" / "rdf.xvg"));
  r = run_pairhist(common + (d / "bad").string() + " --volume -1", d);
  CHECK(r.status != 0);
  CHECK_FALSE(fs::exists(d / "bad"));
  fs::remove_all(d);
}

TEST_CASE("--interval: blocks written as they complete; bad input later keeps them, marked") {
  const fs::path d = scratch_dir("interval");
  const fs::path out = d / "out";
  // The sample with frame 10 damaged: intervals of 4 frames complete at frames 3 and 7.
  const fs::path damaged = d / "damaged.xtc";
  write_damaged_frame(kXtc, 10, damaged);
  const Result r = run_pairhist(
      "run " + damaged.string() + " --top " + kGro +
          " --species O=OW --rmax 1 --nbins 20 --ncpu 1 --interval 4 -o " + out.string(),
      d);
  INFO(r.out << r.err);
  CHECK(r.status != 0);
  CHECK(r.err.find("last complete frame is 9") != std::string::npos);
  CHECK(r.err.find("kept 2 complete intervals (8 frames)") != std::string::npos);
  REQUIRE(fs::exists(out / "pairhist.h5"));
  const auto b3 = pairhist::test::h5_counts((out / "pairhist.h5").string(), "/3/histograms/O,O");
  const auto b7 = pairhist::test::h5_counts((out / "pairhist.h5").string(), "/7/histograms/O,O");
  CHECK(b3.size() == 20);
  CHECK(b7.size() == 20);
  const hid_t f = H5Fopen((out / "pairhist.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  REQUIRE(f >= 0);
  const hid_t meta = H5Gopen2(f, "/pairhist", H5P_DEFAULT);
  int64_t complete = -1;
  const hid_t attr = H5Aopen(meta, "complete", H5P_DEFAULT);
  H5Aread(attr, H5T_NATIVE_INT64, &complete);
  CHECK(complete == 0);
  CHECK(H5Aexists(meta, "stopped_by") > 0);
  H5Aclose(attr);
  H5Gclose(meta);
  H5Fclose(f);
  fs::remove_all(d);
}

TEST_CASE("--interval on the sample: one HDF5 group per block and g(r) error bars") {
  const fs::path d = scratch_dir("blocks");
  const fs::path out = d / "out";
  const Result r = run_pairhist("run " + kXtc + " --top " + kGro +
                                    " --species O=OW --rmax 1.0 --nbins 100 --ncpu 2"
                                    " --interval 30 --verbose -o " +
                                    out.string(),
                                d);
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  uint64_t sum = 0;
  for (const char* block : {"/29", "/59", "/89", "/100"})  // 30 + 30 + 30 + 11 frames
    for (uint64_t c : pairhist::test::h5_counts((out / "pairhist.h5").string(),
                                                std::string(block) + "/histograms/O,O"))
      sum += c;
  CHECK(sum == parse_after(r.out, "examined, "));
  const Csv csv = read_csv(out / "rdf.csv");
  const int g = csv.column("g_O-O"), err = csv.column("gerr_O-O");
  REQUIRE(err >= 0);
  size_t peak = 0;
  for (size_t k = 0; k < csv.rows.size(); ++k)
    if (csv.rows[k][g] > csv.rows[peak][g]) peak = k;
  MESSAGE("O-O first peak " << csv.rows[peak][g] << " +- " << csv.rows[peak][err]);
  CHECK(csv.rows[peak][err] > 0);
  CHECK(csv.rows[peak][err] < 0.2 * csv.rows[peak][g]);
  fs::remove_all(d);
}

TEST_CASE("calibrate stores models; run draws the activity picture and writes cn.xvg") {
  const fs::path d = scratch_dir("calibrate");
  const std::string job = kXtc + " --top " + kGro +
                          " --species O=OW --species H=HW1,HW2 --rmax 1.0 --nbins 50 --ncpu 2";
  const Result cal = run_pairhist("calibrate " + job + " --frames 12 --sched dmda", d);
  INFO(cal.out << cal.err);
  REQUIRE(cal.status == 0);
  CHECK(cal.out.find("models stored in") != std::string::npos);
  CHECK(!fs::exists(fs::current_path() / "pairhist-out"));  // calibrate writes no results
  const Result run =
      run_pairhist("run " + job + " --last 9 --sched dmda --lp-bound --verbose -o " +
                       (d / "out").string() + " --activity-svg " + (d / "act.svg").string(),
                   d);
  INFO(run.out << run.err);
  REQUIRE(run.status == 0);
  CHECK(run.out.find("LP bound") != std::string::npos);
  CHECK(fs::exists(d / "out" / "cn.xvg"));
  std::ifstream in(d / "act.svg");
  std::stringstream svg;
  svg << in.rdbuf();
  CHECK(svg.str().rfind("<svg", 0) == 0);
  CHECK(svg.str().find("CPU 0") != std::string::npos);
  CHECK(svg.str().find("</svg>") != std::string::npos);
  fs::remove_all(d);
}
