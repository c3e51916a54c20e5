// `pairhist run --scattering`: the intensities (and structure factors) written at the end of a
// run are those of `pairhist scattering` on the same run, byte for byte; bad scattering options
// are usage errors before anything is counted; a run that a bad frame ends keeps its completed
// intervals' intensities, marked as rdf.csv is.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/test_support.hpp"

namespace {

using pairhist::test::contains;
using pairhist::test::pairhist_cmd;
using pairhist::test::read_all;
using pairhist::test::shell_quote;
using pairhist::test::TempDir;

const std::string kData = pairhist::test::data_dir();

/// `run` of the water sample's first 10 frames (or all frames of `xtc`) with `extra` options.
std::string water_run(const std::string& out, const std::string& extra,
                      const std::string& xtc = "") {
  return "run " + (xtc.empty() ? kData + "/spce_water.xtc --last 9" : shell_quote(xtc)) +
         " --top " + kData + "/spce_water.gro --species O=OW --species H=HW1,HW2 --rmax 1.2 " +
         "--nbins 240 --ncpu 2 -o " + shell_quote(out) + " " + extra;
}

/// The files both commands write, compared byte for byte.
void check_same_files(const std::string& run_dir, const std::string& command_dir,
                      const std::vector<std::string>& names) {
  for (const std::string& name : names) {
    CAPTURE(name);
    REQUIRE(std::filesystem::exists(run_dir + "/" + name));
    CHECK(read_all(run_dir + "/" + name) == read_all(command_dir + "/" + name));
  }
}

}  // namespace

TEST_CASE("run --scattering writes what `pairhist scattering` writes on the run, byte for byte") {
  TempDir dir("scattering-run");
  struct Case {
    std::string run_options;        // given to `run` after --scattering
    std::string command_options;    // the same, as `pairhist scattering` takes them
    std::string structure_options;  // what `scattering` adds for sq.csv (S(q) is its default)
  };
  const Case cases[] = {
      {"xray --nq 101 --cut-sphere-intensity", "--nq 101", ""},
      // Neutron D2O, S(q) without a window: every shared option reaches both computations.
      {"neutron --deuterate 1 --element O=O --structure-factor --cut-sphere-intensity --window "
       "none --within-bin centre --q-max 80 --nq 161",
       "--radiation neutron --deuterate 1 --element O=O --within-bin centre --q-max 80 --nq 161",
       "--structure-factor --window none"},
  };
  int n = 0;
  for (const Case& c : cases) {
    CAPTURE(c.run_options);
    const std::string run = dir.file("run" + std::to_string(n)),
                      command = dir.file("command" + std::to_string(n++));
    const auto ran = pairhist_cmd(water_run(run, "--scattering " + c.run_options));
    INFO(ran.output);
    REQUIRE(ran.status == 0);
    // The summary lists the files; the guesses are said once (H is guessed, O=O was given).
    CHECK(contains(ran.output,
                   run + "/intensity.csv " + run + "/intensity.xvg " + run + "/intensity.h5"));
    CHECK(contains(ran.output, "pairhist run: warning: elements guessed from atom names: "));
    CHECK(contains(ran.output, "pairhist run: note: periodic box"));
    const std::string quoted = shell_quote(run) + " -o " + shell_quote(command) + " ";
    REQUIRE(pairhist_cmd("scattering " + quoted + c.command_options + " --cut-sphere-intensity")
                .status == 0);
    check_same_files(run, command, {"intensity.csv", "intensity.xvg", "intensity.h5"});
    // A periodic run writes S(q) whether asked or not (the cut-sphere I(q) only when asked).
    REQUIRE(pairhist_cmd("scattering " + quoted + c.command_options + " " + c.structure_options)
                .status == 0);
    check_same_files(run, command, {"sq.csv", "sq.xvg", "sq.h5"});
    if (!c.structure_options.empty())
      CHECK(contains(read_all(run + "/intensity.csv"), "b = 6.671 fm"));  // D, not H
  }

  // Without --scattering nothing of it is written, and --overwrite removes what an earlier run
  // with it left (it would not match the new counts).
  const std::string run = dir.file("run0");
  REQUIRE(pairhist_cmd(water_run(run, "--overwrite -q")).status == 0);
  CHECK(std::filesystem::exists(run + "/rdf.csv"));
  CHECK_FALSE(std::filesystem::exists(run + "/intensity.csv"));
  CHECK_FALSE(std::filesystem::exists(run + "/intensity.xvg"));
  CHECK_FALSE(std::filesystem::exists(run + "/intensity.h5"));
}

TEST_CASE("run --scattering: bad options are usage errors before anything is counted") {
  TempDir dir("scattering-run-bad");
  pairhist::test::write_all(dir.file("q.txt"), "abc\n");
  struct Case {
    std::string options;
    int status;
    std::vector<std::string> lines;  // every line of the message, all reported at once
  };
  const Case cases[] = {
      {"--scattering xray --nq 1 --q-max -3 --window none --step 0",
       2,
       {"--step must be positive", "--nq must be between 2", "--q-max must be a positive"}},
      {"--nq 100 --element O=O",
       2,
       {"--nq goes with --scattering xray|neutron", "--element goes with --scattering"}},
      {"--scattering gamma --within-bin middle",
       2,
       {"--scattering must be xray or neutron, got 'gamma'",
        "--within-bin must be exact or centre"}},
      {"--scattering xray --q-max 300", 2, {"fits hold for q <= 251"}},
      {"--scattering xray --deuterate 0.5", 2, {"--deuterate changes neutron scattering only"}},
      {"--scattering neutron --deuterate X=0.5 --element Y=O",
       2,
       {"--deuterate 'X=0.5': the run has no species 'X'",
        "--element 'Y=O': the run has no species 'Y'"}},
      {"--scattering xray --exclude residue", 2, {"--exclude residue would leave pairs out"}},
      {"--scattering xray --pairs O-H", 2, {"leave out --pairs"}},
      {"--scattering xray --structure-factor --window hann", 2, {"--window must be none or lorch"}},
      // Found from the topology, still before any frame is read.
      {"--scattering xray --species W=OW", 2, {"species O and W share atoms"}},
      {"--scattering xray --element O=Qq9", 2, {"--element O=Qq9: not an element"}},
      {"--scattering neutron --deuterate O=0.5", 2, {"only hydrogen can be deuterated"}},
      {"--scattering xray --q-file " + shell_quote(dir.file("none.txt")), 1, {"no such file"}},
      {"--scattering xray --q-file " + shell_quote(dir.file("q.txt")), 1, {"q.txt line 1"}},
  };
  int n = 0;
  for (const Case& c : cases) {
    CAPTURE(c.options);
    const std::string out = dir.file("out" + std::to_string(n++));
    const auto r = pairhist_cmd(water_run(out, c.options));
    INFO(r.output);
    CHECK(r.status == c.status);
    CHECK(r.output.rfind("pairhist: error: ", 0) == 0);
    for (const std::string& line : c.lines) CHECK(contains(r.output, line));
    CHECK(static_cast<size_t>(std::count(r.output.begin(), r.output.end(), '\n')) ==
          c.lines.size());
    CHECK_FALSE(contains(r.output, "pairhist run:"));  // no summary: nothing was counted
    CHECK_FALSE(std::filesystem::exists(out));         // created only to write results
  }
}

TEST_CASE("run --scattering: a bad frame keeps the completed intervals' intensities, marked") {
  TempDir dir("scattering-run-cut");
  // The water sample with frame 21 damaged (its magic number broken, frames after it): intervals
  // of 3 frames up to frame 20 are complete. (Cut inside frame 21 instead, the file gives the
  // 21 frames before it, exit 0: below.)
  const std::string whole = read_all(kData + "/spce_water.xtc");
  std::string damaged = whole;
  size_t at = 0;
  for (int k = 0; k < 21; ++k) at = damaged.find(whole.substr(0, 8), at + 1);
  REQUIRE(at != std::string::npos);
  damaged[at] = '\x7f';
  pairhist::test::write_all(dir.file("bad.xtc"), damaged);
  const std::string run = dir.file("run");
  auto r = pairhist_cmd(water_run(run, "--interval 3 --scattering xray --cut-sphere-intensity -q",
                                  dir.file("bad.xtc")));
  INFO(r.output);
  REQUIRE(r.status == 1);
  CHECK(contains(r.output, "pairhist: error: " + dir.file("bad.xtc") + ": frame 21: bad magic"));
  CHECK_FALSE(contains(r.output, "scattering failed"));
  const std::string rdf = read_all(run + "/rdf.csv");
  const std::string stopped_by = "stopped_by = " + dir.file("bad.xtc") + ": frame 21: bad magic";
  CHECK(contains(rdf, "# complete = 0\n# " + stopped_by));
  const std::string intensity = read_all(run + "/intensity.csv");
  CHECK(contains(intensity, "# note: complete = 0, " + stopped_by));
  CHECK(contains(intensity, "the run stopped early, 21 frames"));
  REQUIRE(pairhist_cmd("scattering " + shell_quote(run) + " --cut-sphere-intensity -o " +
                       shell_quote(dir.file("cmp")))
              .status == 0);
  check_same_files(run, dir.file("cmp"), {"intensity.csv", "intensity.xvg", "intensity.h5"});
  // S(q), written by default, is marked alike and carries the 7 completed blocks' errors.
  const std::string sq = read_all(run + "/sq.csv");
  CHECK(contains(sq, "# note: complete = 0, " + stopped_by));
  CHECK(contains(sq, "over the run's 7 interval blocks"));
  REQUIRE(pairhist_cmd("scattering " + shell_quote(run) + " -o " + shell_quote(dir.file("cmp")))
              .status == 0);
  check_same_files(run, dir.file("cmp"), {"sq.csv", "sq.xvg", "sq.h5"});

  // The sample cut inside frame 21: a run of its 21 whole frames, marked as ending early there.
  pairhist::test::write_all(dir.file("cut.xtc"), whole.substr(0, 200000));
  const std::string cut_run = dir.file("cut-run");
  r = pairhist_cmd(water_run(cut_run, "--interval 3 --scattering xray --cut-sphere-intensity -q",
                             dir.file("cut.xtc")));
  REQUIRE(r.status == 0);
  const std::string cut_by = "stopped_by = " + dir.file("cut.xtc") + ": frame 21: truncated";
  CHECK(contains(read_all(cut_run + "/rdf.csv"), "# complete = 0\n# " + cut_by));
  const std::string cut_intensity = read_all(cut_run + "/intensity.csv");
  CHECK(contains(cut_intensity, "# note: complete = 0, " + cut_by));
  CHECK(contains(cut_intensity, "the run stopped early, 21 frames"));

  // What needs the counts is found at the end: S(q) of a run without a box. The counts, g(r)
  // and the intensity are written; the error says where they are.
  pairhist::test::write_all(dir.file("two.xyz"), "2\nno box\nO 0 0 0\nO 1.5 0 0\n");
  r = pairhist_cmd("run " + shell_quote(dir.file("two.xyz")) + " --top " +
                   shell_quote(dir.file("two.xyz")) + " --species O=O --rmax 5 " +
                   "--nbins 10 --ncpu 2 -q --scattering xray --structure-factor --nq 11 -o " +
                   shell_quote(dir.file("nobox")));
  CHECK(r.status == 2);
  CHECK(contains(r.output,
                 "pairhist: error: scattering failed after the counting (the counts "
                 "are safe in " +
                     dir.file("nobox") + "/pairhist.h5"));
  CHECK(contains(r.output, "structure factors need a periodic run"));
  CHECK(std::filesystem::exists(dir.file("nobox/intensity.csv")));
  CHECK_FALSE(std::filesystem::exists(dir.file("nobox/sq.csv")));
}
