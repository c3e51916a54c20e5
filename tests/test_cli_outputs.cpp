// What a command may write (issue 40): no output replaces an input of the run or another output
// (refused with one line before any work); links, devices, pipes and standard output are written
// through, never replaced by rename; a replaced file keeps a numbered backup as gmx keeps
// #rdf.xvg.1#, unless --overwrite; and `run --overwrite` replaces an earlier run's results only
// once the new run has results, never deleting an input inside its output directory.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <filesystem>
#include <sstream>
#include <string>

#include "tests/test_support.hpp"

namespace {

namespace fs = std::filesystem;
using pairhist::test::CommandResult;
using pairhist::test::contains;
using pairhist::test::pairhist_cmd;
using pairhist::test::read_all;
using pairhist::test::shell_quote;
using pairhist::test::TempDir;
using pairhist::test::write_all;

const std::string kData = pairhist::test::data_dir();

/// `pairhist rdf` of O-O on `xtc` with `gro`, short: `extra` adds the outputs.
std::string rdf(const std::string& xtc, const std::string& gro, const std::string& extra) {
  return "rdf -f " + shell_quote(xtc) + " -s " + shell_quote(gro) +
         " -ref OW -sel OW -rmax 0.3 -bin 0.01 " + extra;
}

/// `pairhist run` of O on `xtc` with `gro`, 5 frames, quiet, into `out`, with `extra`.
std::string run(const std::string& xtc, const std::string& gro, const std::string& out,
                const std::string& extra = "") {
  return "run " + shell_quote(xtc) + " --top " + shell_quote(gro) +
         " --species O=OW --rmax 0.3 --nbins 30 --last 4 --ncpu 1 -q -o " + shell_quote(out) + " " +
         extra;
}

int error_lines(const std::string& output) {
  int n = 0;
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);) n += line.rfind("pairhist: error: ", 0) == 0;
  return n;
}

/// The run was refused with `lines` lines, one holding `message`, exit status 2.
void refused(const CommandResult& r, const std::string& message, int lines = 1) {
  INFO(r.output);
  CHECK(r.status == 2);
  CHECK(error_lines(r.output) == lines);
  CHECK(contains(r.output, message));
}

/// A scratch directory holding copies of the water sample, copy.xtc and conf.gro.
struct Inputs {
  Inputs() : t("outputs") {
    fs::copy_file(kData + "/spce_water.xtc", xtc);
    fs::copy_file(kData + "/spce_water.gro", gro);
  }
  TempDir t;
  const std::string xtc = t.file("copy.xtc"), gro = t.file("conf.gro");
  const std::string xtc_bytes = read_all(kData + "/spce_water.xtc");
  const std::string gro_bytes = read_all(kData + "/spce_water.gro");
  void check_untouched() const {
    CHECK(read_all(xtc) == xtc_bytes);
    CHECK(read_all(gro) == gro_bytes);
  }
};

bool is_kind(const std::string& path, mode_t kind) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 && (st.st_mode & S_IFMT) == kind;
}

}  // namespace

TEST_CASE("rdf: an output that is an input or the other output is refused before any work") {
  Inputs in;
  refused(pairhist_cmd(rdf(in.xtc, in.gro, "-o " + in.xtc)),
          "-o " + in.xtc + " would replace -f " + in.xtc + ": an output may not replace an input");
  refused(pairhist_cmd(rdf(in.xtc, in.gro, "-cn " + in.gro)),
          "-cn " + in.gro + " would replace -s " + in.gro);
  // By identity, not by name: a hard link, a symbolic link, a path through "..".
  fs::create_hard_link(in.xtc, in.t.file("hard.xtc"));
  fs::create_symlink(in.gro, in.t.file("link.xvg"));
  fs::create_directories(in.t.file("sub"));
  refused(pairhist_cmd(rdf(in.xtc, in.gro, "-o " + in.t.file("hard.xtc"))),
          "would replace -f " + in.xtc);
  refused(pairhist_cmd(rdf(in.xtc, in.gro, "-o " + in.t.file("link.xvg"))),
          "would replace -s " + in.gro);
  const std::string same = in.t.file("same.xvg"), also = in.t.file("sub/../same.xvg");
  refused(pairhist_cmd(rdf(in.xtc, in.gro, "-o " + same + " -cn " + also)),
          "-o " + same + " and -cn " + also + " are the same file");
  CHECK_FALSE(fs::exists(same));
  in.check_untouched();
}

TEST_CASE("run: an output that is an input of the run or one of its results is refused") {
  Inputs in;
  const std::string out = in.t.file("out");
  refused(pairhist_cmd(run(in.xtc, in.gro, out, "--report " + in.xtc)),
          "--report " + in.xtc + " would replace the trajectory " + in.xtc);
  refused(pairhist_cmd(run(in.xtc, in.gro, out, "--task-trace " + in.gro)),
          "--task-trace " + in.gro + " would replace the topology " + in.gro);
  CHECK_FALSE(fs::exists(out));  // refused before the directory was made
  refused(pairhist_cmd(run(in.xtc, in.gro, out, "--report " + out + "/rdf.csv")),
          "the result " + out + "/rdf.csv of -o " + out + " and --report " + out +
              "/rdf.csv are the same file");
  refused(pairhist_cmd(run(in.xtc, in.gro, out, "--report " + in.t.dir.string())),
          "--report " + in.t.dir.string() + " is a directory");
  // An input inside the output directory under a name the run writes there.
  fs::create_directories(out);
  write_all(out + "/intensity.csv", "1\n2\n");
  refused(pairhist_cmd(
              run(in.xtc, in.gro, out, "--scattering xray --q-file " + out + "/intensity.csv")),
          "the result " + out + "/intensity.csv of -o " + out + " would replace --q-file " + out +
              "/intensity.csv");
  CHECK(read_all(out + "/intensity.csv") == "1\n2\n");
  // A converted input in its own output directory (as CADISHI's pairhist.h5 there): kept.
  const CommandResult converted =
      pairhist_cmd("convert " + in.xtc + " " + out + "/pairhist.h5 --top " + in.gro +
                   " --species O=OW --last 4 -q");
  INFO(converted.output);
  REQUIRE(converted.status == 0);
  const std::string h5 = read_all(out + "/pairhist.h5");
  refused(pairhist_cmd("run " + out + "/pairhist.h5 --rmax 0.3 --nbins 30 -q -o " + out +
                       " --overwrite"),
          "the result " + out + "/pairhist.h5 of -o " + out + " would replace the trajectory " +
              out + "/pairhist.h5");
  CHECK(read_all(out + "/pairhist.h5") == h5);
  in.check_untouched();
}

TEST_CASE("convert, scattering and synth refuse an output that is one of their inputs") {
  Inputs in;
  // convert writes a .gro beside an XTC of regrouped species: here the topology itself.
  refused(pairhist_cmd("convert " + in.xtc + " " + in.t.file("conf.xtc") + " --top " + in.gro +
                       " --species O=OW -q"),
          "the output " + in.gro + " (the atoms' names) would replace --top " + in.gro);
  CHECK_FALSE(fs::exists(in.t.file("conf.xtc")));
  // scattering writes intensity.csv beside the run's pairhist.h5: here its q file.
  const std::string out = in.t.file("out");
  const CommandResult ran = pairhist_cmd(run(in.xtc, in.gro, out));
  INFO(ran.output);
  REQUIRE(ran.status == 0);
  write_all(out + "/intensity.csv", "1\n2\n");
  refused(pairhist_cmd("scattering " + out + " --element O=O --cut-sphere-intensity --q-file " +
                       out + "/intensity.csv"),
          "the output " + out + "/intensity.csv would replace --q-file " + out + "/intensity.csv");
  CHECK(read_all(out + "/intensity.csv") == "1\n2\n");
  // synth writes DIR/W1.xtc and DIR/W1.gro: here its sample.
  const std::string dir = in.t.file("synth");
  fs::create_directories(dir);
  fs::copy_file(in.xtc, dir + "/W1.xtc");
  fs::copy_file(in.gro, dir + "/W1.gro");
  refused(pairhist_cmd("synth --case W1 --replicas 1 --frames 1 --sample " + dir +
                       "/W1.xtc --sample-top " + dir + "/W1.gro -q -o " + dir),
          "the output " + dir + "/W1.xtc would replace --sample " + dir + "/W1.xtc", 2);
  CHECK(read_all(dir + "/W1.xtc") == in.xtc_bytes);
  in.check_untouched();
}

TEST_CASE("run --overwrite replaces the earlier results only once the new run has results") {
  Inputs in;
  const std::string out = in.t.file("out");
  REQUIRE(pairhist_cmd(run(in.xtc, in.gro, out)).status == 0);
  const std::string csv = read_all(out + "/rdf.csv"), h5 = read_all(out + "/pairhist.h5");
  const std::string checkpoint = read_all(out + "/pairhist.ckpt");
  // A misspelled species fails once the topology is read, after the directory was claimed:
  // the earlier run's files are as they were (before: all removed).
  const CommandResult bad = pairhist_cmd(run(in.xtc, in.gro, out, "--overwrite --species H=HWX"));
  INFO(bad.output);
  CHECK(bad.status != 0);
  CHECK(read_all(out + "/rdf.csv") == csv);
  CHECK(read_all(out + "/pairhist.h5") == h5);
  CHECK(read_all(out + "/pairhist.ckpt") == checkpoint);
  // A run that succeeds replaces them; an input inside the directory stays.
  fs::copy_file(in.xtc, out + "/traj.xtc");
  const CommandResult good = pairhist_cmd(run(out + "/traj.xtc", in.gro, out, "--overwrite"));
  INFO(good.output);
  CHECK(good.status == 0);
  CHECK(read_all(out + "/traj.xtc") == in.xtc_bytes);
  CHECK(read_all(out + "/rdf.csv") == csv);                     // same counts, new file
  CHECK(contains(read_all(out + "/pairhist.h5"), "traj.xtc"));  // its configuration names it
  CHECK(pairhist_cmd(run(out + "/traj.xtc", in.gro, out, "--resume")).status == 0);
}

TEST_CASE("a replaced output keeps a numbered backup, as gmx does, unless --overwrite") {
  Inputs in;
  const std::string xvg = in.t.file("r.xvg");
  write_all(xvg, "mine\n");
  const CommandResult first = pairhist_cmd(rdf(in.xtc, in.gro, "-o " + xvg));
  INFO(first.output);
  REQUIRE(first.status == 0);
  CHECK(
      contains(first.output, "pairhist: note: backed up " + xvg + " to " + in.t.file("#r.xvg.1#")));
  CHECK(read_all(in.t.file("#r.xvg.1#")) == "mine\n");
  const std::string made = read_all(xvg);
  CHECK(contains(made, "g(r)"));
  REQUIRE(pairhist_cmd(rdf(in.xtc, in.gro, "-o " + xvg)).status == 0);
  CHECK(read_all(in.t.file("#r.xvg.2#")) == made);
  REQUIRE(pairhist_cmd(rdf(in.xtc, in.gro, "-o " + xvg + " -overwrite")).status == 0);
  CHECK_FALSE(fs::exists(in.t.file("#r.xvg.3#")));
  // As gmx, not more than 99.
  for (int n = 3; n <= 99; ++n) write_all(in.t.file("#r.xvg." + std::to_string(n) + "#"), "");
  refused(pairhist_cmd(rdf(in.xtc, in.gro, "-o " + xvg)),
          in.t.file("#r.xvg.99#") + " exist already: remove some backups, or add --overwrite");
  // run's --report likewise; its output directory has its own rule (no backups there).
  const std::string report = in.t.file("report.json");
  write_all(report, "{}\n");
  REQUIRE(pairhist_cmd(run(in.xtc, in.gro, in.t.file("a"), "--report " + report)).status == 0);
  CHECK(read_all(in.t.file("#report.json.1#")) == "{}\n");
  REQUIRE(
      pairhist_cmd(run(in.xtc, in.gro, in.t.file("a"), "--overwrite --report " + report)).status ==
      0);
  CHECK_FALSE(fs::exists(in.t.file("#report.json.2#")));
  CHECK_FALSE(fs::exists(in.t.file("a/#rdf.csv.1#")));
}

TEST_CASE("links, pipes and devices are written through, never replaced") {
  Inputs in;
  // A symbolic link: its target is replaced (with its backup beside it), the link kept.
  fs::create_directories(in.t.file("real"));
  const std::string link = in.t.file("link.xvg"), target = in.t.file("real/target.xvg");
  fs::create_symlink(target, link);  // dangling until the first run
  for (int pass = 0; pass < 2; ++pass) {
    const CommandResult r = pairhist_cmd(rdf(in.xtc, in.gro, "-o " + link));
    INFO(r.output);
    REQUIRE(r.status == 0);
    CHECK(is_kind(link, S_IFLNK));
    CHECK(contains(read_all(target), "g(r)"));
  }
  CHECK(fs::exists(in.t.file("real/#target.xvg.1#")));
  // A named pipe: written into, for the reader at its other end.
  const std::string pipe = in.t.file("pipe"), got = in.t.file("got");
  REQUIRE(::mkfifo(pipe.c_str(), 0600) == 0);
  CommandResult piped;
  piped.status = pairhist::test::capture("(timeout 60 cat " + pipe + " > " + got + " &); " +
                                             pairhist::test::pairhist_binary() + " " +
                                             rdf(in.xtc, in.gro, "-o " + pipe),
                                         piped.output);
  INFO(piped.output);
  CHECK(piped.status == 0);
  CHECK(is_kind(pipe, S_IFIFO));
  for (int i = 0; i < 100 && !contains(read_all(got), "g(r)"); ++i) ::usleep(50000);
  CHECK(contains(read_all(got), "g(r)"));
  // Character devices (made here where allowed, as /dev/null and /dev/full are).
  const std::string null = in.t.file("null"), full = in.t.file("full");
  if (::mknod(null.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0 ||
      ::mknod(full.c_str(), S_IFCHR | 0666, makedev(1, 7)) != 0) {
    MESSAGE("mknod not allowed here: the device nodes' cases skipped");
    return;
  }
  CHECK(pairhist_cmd(rdf(in.xtc, in.gro, "-o " + null)).status == 0);
  CHECK(is_kind(null, S_IFCHR));
  const CommandResult no_space = pairhist_cmd(rdf(in.xtc, in.gro, "-o " + full));
  INFO(no_space.output);
  CHECK(no_space.status == 1);
  CHECK(error_lines(no_space.output) == 1);
  CHECK(contains(no_space.output, "cannot write " + full + ": No space left on device"));
  CHECK(is_kind(full, S_IFCHR));
}

// Apart: a binary from before these rules would replace /dev/stdout and /dev/null themselves
// (as root), so a check of the old behaviour runs the cases above only.
TEST_CASE("standard output and /dev/null are written through") {
  Inputs in;
  // Standard output, also where it was redirected to a regular file: after what was printed.
  const std::string printed = in.t.file("printed");
  const CommandResult out = pairhist_cmd(rdf(in.xtc, in.gro, "-o /dev/stdout > " + printed));
  INFO(out.output);
  CHECK(out.status == 0);
  CHECK(is_kind("/dev/stdout", S_IFLNK));
  CHECK(contains(read_all(printed), "@    title \"Radial distribution\""));
  CHECK(contains(read_all(printed), "pairhist rdf: g(r) of 1 selection"));
  CHECK(pairhist_cmd(rdf(in.xtc, in.gro, "-o /dev/null")).status == 0);
  CHECK(is_kind("/dev/null", S_IFCHR));
}
