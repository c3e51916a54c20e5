// Inputs and option values a careless user gives (issue 40): values outside their rules, options
// given twice, directories, FIFOs and devices as input files, q files with several values on a
// line, --table keys that match nothing, control characters in names, a --report that cannot be
// written. Each is one line naming the problem (and the rule), before any work; nothing is
// silently taken for something else.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <tuple>

#include "tests/test_support.hpp"

namespace fs = std::filesystem;
using pairhist::test::CommandResult;
using pairhist::test::contains;
using pairhist::test::pairhist_cmd;
using pairhist::test::shell_quote;

namespace {

const std::string kData = pairhist::test::data_dir();
const std::string kXtc = kData + "/spce_water.xtc";
const std::string kGro = kData + "/spce_water.gro";

struct Scratch {
  fs::path dir = fs::temp_directory_path() / ("pairhist-checked-" + std::to_string(getpid()));
  Scratch() {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  std::string file(const std::string& name) const { return (dir / name).string(); }
};

int error_lines(const std::string& text) {
  int n = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) n += line.rfind("pairhist: error: ", 0) == 0;
  return n;
}

/// `pairhist run` on 3 frames of the water sample (or those of an --last in `extra`), with `extra`
/// options, into `out`.
CommandResult run(const std::string& extra, const std::string& out) {
  const bool last = contains(extra, "--last "), ncpu = contains(extra, "--ncpu ");
  return pairhist_cmd("run " + kXtc + " -s " + kGro + " --species O=OW --rmax 0.5 " +
                      (last ? "" : "--last 2 ") + (ncpu ? "" : "--ncpu 1 ") + "-q " + extra +
                      " -o " + shell_quote(out));
}

/// One error line holding `message`, exit status `status`, nothing made at `out`.
void check_refused(const CommandResult& r, int status, const std::string& message,
                   const std::string& out = "") {
  INFO(r.output);
  CHECK(r.status == status);
  CHECK(error_lines(r.output) == 1);
  CHECK(contains(r.output, message));
  if (!out.empty()) CHECK_FALSE(fs::exists(out));
}

}  // namespace

TEST_CASE("option values outside their rules: one line with the rule, exit 2, before any work") {
  Scratch s;
  const std::string out = s.file("out");
  for (const auto& [extra, message] : {
           // before: the default bins (250 here), silently
           std::pair<std::string, std::string>{
               "--nbins 0",
               "--nbins: got '0'; it takes a whole number of bins from 1 to 100000000"},
           // before: std::bad_alloc, or the kernel's OOM killer
           {"--nbins 2000000000",
            "--nbins: 2000000000 is over the limit of 100000000 bins (a histogram of 2000000000 "
            "bins would take 16 GB"},
           {"--last -5", "--last must be -1 (to the end) or a frame index, 0 or more, got -5"},
           {"--begin nan", "--begin: got 'nan'; it takes a number (not nan or inf)"},
           {"--end inf", "--end: got 'inf'; it takes a number (not nan or inf)"},
           {"--step 0", "--step must be positive"},
           {"--first -1", "--first must be >= 0"},
           // before: 128 CPU workers on a 2-core machine
           {"--ncpu 100000", "--ncpu must be -1 (planned) or 0 to "},
       }) {
    CAPTURE(extra);
    check_refused(run(extra, out), 2, message, out);
  }
  // A config file's values obey the same rules.
  pairhist::test::write_all(s.file("c.yaml"), "nbins: 0\n");
  check_refused(run("--config " + shell_quote(s.file("c.yaml")), out), 2,
                "c.yaml: nbins: --nbins: got '0'", out);
  // `pairhist rdf`: a -bin too fine for its -rmax, and -dt as given (before: "0.000000 ps").
  check_refused(pairhist_cmd("rdf -f " + kXtc + " -s " + kGro +
                             " -ref OW -sel OW -rmax 1 -bin 1e-9 -o " + s.file("r.xvg")),
                2, "-rmax / -bin makes over the limit of 100000000 bins", s.file("r.xvg"));
  check_refused(pairhist_cmd("rdf -f " + kXtc + " -s " + kGro + " -ref OW -sel OW -dt 1e-9 -o " +
                             s.file("r.xvg")),
                2, "-dt 1e-09 ps is no multiple of the frames' 0.3 ps", s.file("r.xvg"));
}

TEST_CASE("an option given twice is refused, as gmx refuses it") {
  Scratch s;
  const std::string out = s.file("out");
  check_refused(run("--nbins 5 --nbins 7", out), 2, "--nbins was given 2 times: give it once", out);
  // before: a flag given twice counted once
  check_refused(run("--nbins 5 --quiet", out), 2, "--quiet was given 2 times: give it once", out);
  const std::string rdf = "rdf -f " + kXtc + " -s " + kGro + " -ref OW -sel OW -o " +
                          shell_quote(s.file("r.xvg")) + " ";
  // before: the last value won
  check_refused(pairhist_cmd(rdf + "-b 0 -b 3"), 2, "-b was given more than once: give it once",
                s.file("r.xvg"));
  check_refused(pairhist_cmd(rdf + "-excl -noexcl"), 2, "-excl was given more than once",
                s.file("r.xvg"));
  // Options that collect values still take several.
  const CommandResult two = run("--nbins 5 --species H=HW1 --species W=HW2", out);
  INFO(two.output);
  CHECK(two.status == 0);
}

TEST_CASE("directories, FIFOs and devices as input files are named as what they are") {
  Scratch s;
  fs::create_directories(s.file("dir.xtc"));
  REQUIRE(::mkfifo(s.file("fifo.xtc").c_str(), 0600) == 0);
  REQUIRE(::mkfifo(s.file("fifo.txt").c_str(), 0600) == 0);
  const std::string dir = shell_quote(s.file("dir.xtc")), fifo = shell_quote(s.file("fifo.xtc"));
  const std::string out = s.file("out");
  // before: "no such file" for each of them (and a FIFO as --config waited forever)
  for (const auto& [args, status, message] : {
           std::tuple<std::string, int, std::string>{
               "run " + dir + " -s " + kGro + " --species O=OW --ncpu 1 -o " + out, 1,
               "dir.xtc: is a directory"},
           {"run " + fifo + " -s " + kGro + " --species O=OW --ncpu 1 -o " + out, 1,
            "fifo.xtc: is a FIFO (named pipe), not a regular file"},
           {"run /dev/null -s " + kGro + " --species O=OW --ncpu 1 -o " + out, 1,
            "/dev/null: is a character device, not a regular file"},
           {"run " + kXtc + " -s " + dir + " --species O=OW --ncpu 1 -o " + out, 1,
            "dir.xtc: is a directory"},
           {"run " + kXtc + " -s " + kGro + " -n " + fifo + " --species O=OW --ncpu 1 -o " + out, 1,
            "fifo.xtc: is a FIFO"},
           {"run " + kXtc + " -s " + kGro + " --species O=OW --ncpu 1 --config " + dir + " -o " +
                out,
            2, "dir.xtc: cannot read the config file (is a directory)"},
           {"run " + kXtc + " -s " + kGro + " --species O=OW --ncpu 1 --config " +
                shell_quote(s.file("fifo.txt")) + " -o " + out,
            2, "fifo.txt: cannot read the config file (is a FIFO"},
           {"rdf -f " + dir + " -s " + kGro + " -ref OW -sel OW -o " + s.file("r.xvg"), 2,
            "dir.xtc: is a directory"},
           {"convert " + fifo + " " + s.file("c.xtc"), 1, "fifo.xtc: is a FIFO"},
       }) {
    CAPTURE(args);
    CommandResult r;
    r.status = pairhist::test::capture(
        "timeout 60 " + shell_quote(pairhist::test::pairhist_binary()) + " " + args, r.output);
    check_refused(r, status, message, out);
  }
}

TEST_CASE("scattering inputs: q files one value per line, no directory taken for a file") {
  Scratch s;
  const std::string out = s.file("run");
  REQUIRE(run("--nbins 50", out).status == 0);
  pairhist::test::write_all(s.file("q.txt"), "# q in 1/nm\n0.5\n1 2 3\n");
  fs::create_directories(s.file("dir.txt"));
  const std::string scattering = "scattering " + shell_quote(out) + " --element O=O ";
  // before: q = 0.5 and 1, the 2 and 3 dropped
  check_refused(pairhist_cmd(scattering + "--q-file " + shell_quote(s.file("q.txt"))), 1,
                "q.txt line 3: '1 2 3' holds more than one value: a q file holds one q (1/nm) per "
                "line");
  // before: "no q values", and a directory as --table was an empty table
  check_refused(pairhist_cmd(scattering + "--q-file " + shell_quote(s.file("dir.txt"))), 1,
                "dir.txt: is a directory");
  check_refused(pairhist_cmd(scattering + "--table " + shell_quote(s.file("dir.txt"))), 1,
                "dir.txt: is a directory");
  // Sums that would take an hour: refused at once (before: no word until they ended).
  check_refused(pairhist_cmd(scattering + "--nq 10000000"), 2,
                "10000000 q values x 50 bins are over the limit of 10^8 q x bins (a sine "
                "integral each; their kernels would take 4 GB)");
  CHECK_FALSE(fs::exists(out + "/intensity.csv"));
  check_refused(run("--nbins 50 --scattering xray --nq 3000000", s.file("run2")), 2,
                "--scattering: 3000000 q values x 50 bins are over the limit", s.file("run2"));
}

TEST_CASE("--table keys that match no species or element: a warning naming them") {
  Scratch s;
  const std::string out = s.file("run");
  REQUIRE(run("--nbins 50", out).status == 0);
  pairhist::test::write_all(s.file("table.txt"), "Ow 5.8\nO 5.803\n");
  const CommandResult r = pairhist_cmd("scattering " + shell_quote(out) +
                                       " --radiation neutron --element O=O --table " +
                                       shell_quote(s.file("table.txt")));
  INFO(r.output);
  CHECK(r.status == 0);
  CHECK(contains(r.output, "pairhist: warning: --table " + s.file("table.txt") +
                               ": 'Ow' matches no species or element of the run, ignored "
                               "(species: O (O))"));
}

TEST_CASE("control characters: refused in species names, escaped in file headers") {
  Scratch s;
  const std::string out = s.file("out");
  check_refused(run("--nbins 5 --species " + shell_quote("W\x01=OW"), out), 2,
                "--species 'W\\x01=OW': a species name may not hold control characters", out);
  // A selection may span lines; its text in the headers does not.
  const CommandResult r = pairhist_cmd("rdf -f " + kXtc + " -s " + kGro + " -ref OW -sel " +
                                       shell_quote("name OW\n\tor name HW1") + " -e 1 -o " +
                                       shell_quote(s.file("r.xvg")));
  INFO(r.output);
  REQUIRE(r.status == 0);
  const std::string xvg = pairhist::test::read_all(s.file("r.xvg"));
  CHECK(contains(xvg, "@ s0 legend \"name OW\\n\\tor name HW1\"\n"));
  std::istringstream lines(xvg);
  for (std::string line; std::getline(lines, line);) {
    CAPTURE(line);
    CHECK((line.empty() || line[0] == '#' || line[0] == '@' || line[0] == ' '));
    for (char c : line) CHECK(static_cast<unsigned char>(c) >= 0x20);
  }
}

TEST_CASE("--report and the other files written after the counting: checked before it") {
  Scratch s;
  fs::create_directories(s.file("reports"));
  const std::string out = s.file("out");
  // before: the whole run, then "cannot move finished output ... Is a directory", exit 1
  check_refused(run("--nbins 5 --report " + shell_quote(s.file("reports")), out), 2,
                "--report " + s.file("reports") + " is a directory: --report names a file", out);
  check_refused(run("--nbins 5 --task-trace " + shell_quote(s.file("none/t.csv")), out), 2,
                "--task-trace " + s.file("none/t.csv") + ": no directory " + s.file("none"), out);
  // A name the file system refuses: said before the counting, or at least in words (before: the
  // run, then "cannot write the g(r) file"; "filesystem error: status: File name too long").
  const std::string long_name = std::string(300, 'x');
  check_refused(run("--nbins 5 --report " + shell_quote(s.file(long_name + ".json")), out), 2,
                "file name too long (305 characters, at most 255 here)", out);
  check_refused(pairhist_cmd("rdf -f " + kXtc + " -s " + kGro + " -ref OW -sel OW -o " +
                             shell_quote(s.file(long_name + ".xvg"))),
                2, "file name too long (304 characters", out);
  const CommandResult too_long = run("--nbins 5", s.file(long_name));
  check_refused(too_long, 1, long_name + ": File name too long", out);
  CHECK_FALSE(contains(too_long.output, "filesystem error"));
  // A report inside the output directory, which the run makes, is fine.
  const CommandResult r = run("--nbins 5 --report " + shell_quote(out + "/run.json"), out);
  INFO(r.output);
  CHECK(r.status == 0);
  CHECK(fs::is_regular_file(out + "/run.json"));
}
