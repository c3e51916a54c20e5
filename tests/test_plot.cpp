// `pairhist plot` end to end on real runs of the bundled sample (PNG and SVG through gnuplot),
// the run-output reader it uses, and its errors.
#include <doctest/doctest.h>

#include <cctype>
#include <cmath>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "io/results/run_output_reader.hpp"
#include "pairhist/errors.hpp"
#include "tests/test_support.hpp"

namespace {

using pairhist::test::contains;
using pairhist::test::read_all;
using pairhist::test::shell_quote;
using pairhist::test::TempDir;

const std::string kData = pairhist::test::data_dir();

/// Runs `pairhist ARGS` (a shell string) with stdout and stderr together.
int pairhist_cli(const std::string& args, std::string& output, const std::string& env = "") {
  return pairhist::test::capture(
      env + " " + shell_quote(pairhist::test::pairhist_binary()) + " " + args, output);
}

int count_lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

/// A run of the SPC/E sample (O, H; 4 interval blocks, so g(r) has error bars), made once.
const TempDir& sample_run() {
  static const std::unique_ptr<TempDir> dir = [] {
    auto d = std::make_unique<TempDir>("plot-run");
    std::string log;
    const int status = pairhist_cli(
        "run " + kData + "/spce_water.xtc --top " + kData + "/spce_water.gro" +
            " --species O=OW --species H=HW1,HW2 --rmax 1.2 --nbins 120 --interval 30 --ncpu 2" +
            " -q -o " + shell_quote(d->file("run")),
        log);
    INFO(log);
    REQUIRE(status == 0);
    return d;
  }();
  return *dir;
}

std::string run_dir() {
  return sample_run().file("run");
}

/// True if `s` is well-formed XML as far as an SVG needs: declarations, comments, CDATA, nested
/// and balanced elements, quoted attributes, entity references, one root. `why` says what is not.
bool well_formed_xml(const std::string& s, std::string& why) {
  std::vector<std::string> open;
  bool root_seen = false;
  size_t i = 0;
  auto name_at = [&](size_t& k) {
    const size_t b = k;
    while (k < s.size() && (std::isalnum(static_cast<unsigned char>(s[k])) || s[k] == '_' ||
                            s[k] == ':' || s[k] == '-' || s[k] == '.'))
      ++k;
    return s.substr(b, k - b);
  };
  auto entity_ok = [&](size_t k) {  // s[k] == '&'
    size_t e = k + 1;
    if (e < s.size() && s[e] == '#') ++e;
    const size_t b = e;
    while (e < s.size() && std::isalnum(static_cast<unsigned char>(s[e]))) ++e;
    return e > b && e < s.size() && s[e] == ';';
  };
  auto skip_to = [&](const char* end) {
    const size_t e = s.find(end, i);
    if (e == std::string::npos) return false;
    i = e + std::string(end).size();
    return true;
  };
  while (i < s.size()) {
    if (s[i] != '<') {
      if (open.empty() && !std::isspace(static_cast<unsigned char>(s[i]))) {
        why = "text outside the root element at byte " + std::to_string(i);
        return false;
      }
      if (s[i] == '&' && !entity_ok(i)) {
        why = "bad entity at byte " + std::to_string(i);
        return false;
      }
      ++i;
      continue;
    }
    const size_t at = i;
    bool ok = true;
    if (s.compare(i, 2, "<?") == 0) {
      ok = skip_to("?>");
    } else if (s.compare(i, 4, "<!--") == 0) {
      ok = skip_to("-->");
    } else if (s.compare(i, 9, "<![CDATA[") == 0) {
      ok = skip_to("]]>");
    } else if (s.compare(i, 2, "<!") == 0) {
      ok = skip_to(">");
    } else if (s.compare(i, 2, "</") == 0) {
      size_t k = i + 2;
      const std::string name = name_at(k);
      while (k < s.size() && std::isspace(static_cast<unsigned char>(s[k]))) ++k;
      if (k >= s.size() || s[k] != '>' || open.empty() || open.back() != name) {
        why = "unbalanced </" + name + "> at byte " + std::to_string(at);
        return false;
      }
      open.pop_back();
      i = k + 1;
    } else {
      size_t k = i + 1;
      const std::string name = name_at(k);
      if (name.empty() || (open.empty() && root_seen)) {
        why = "bad or second root element at byte " + std::to_string(at);
        return false;
      }
      bool closed = false;
      for (;;) {
        while (k < s.size() && std::isspace(static_cast<unsigned char>(s[k]))) ++k;
        if (k >= s.size()) {
          ok = false;
          break;
        }
        if (s.compare(k, 2, "/>") == 0) {
          closed = true;
          k += 2;
          break;
        }
        if (s[k] == '>') {
          ++k;
          break;
        }
        const std::string attr = name_at(k);
        while (k < s.size() && std::isspace(static_cast<unsigned char>(s[k]))) ++k;
        if (attr.empty() || k >= s.size() || s[k] != '=') {
          ok = false;
          break;
        }
        ++k;
        while (k < s.size() && std::isspace(static_cast<unsigned char>(s[k]))) ++k;
        const char quote = k < s.size() ? s[k] : '\0';
        const size_t end = quote == '"' || quote == '\'' ? s.find(quote, k + 1) : std::string::npos;
        if (end == std::string::npos) {
          ok = false;
          break;
        }
        for (size_t v = k + 1; v < end; ++v)
          if (s[v] == '<' || (s[v] == '&' && !entity_ok(v))) ok = false;
        k = end + 1;
      }
      if (ok) {
        root_seen = true;
        if (!closed) open.push_back(name);
        i = k;
      }
    }
    if (!ok) {
      why = "malformed markup at byte " + std::to_string(at);
      return false;
    }
  }
  if (!open.empty()) {
    why = "<" + open.back() + "> is never closed";
    return false;
  }
  if (!root_seen) why = "no root element";
  return root_seen;
}

void check_png(const std::string& path, uint32_t width, uint32_t height) {
  const std::string png = read_all(path);
  REQUIRE(png.size() > 1000);
  CHECK(png.compare(0, 8, "\x89PNG\r\n\x1a\n") == 0);
  CHECK(png.compare(12, 4, "IHDR") == 0);
  CHECK(pairhist::test::get_be32(png, 16) == width);
  CHECK(pairhist::test::get_be32(png, 20) == height);
}

std::string checked_svg(const std::string& path) {
  const std::string svg = read_all(path);
  std::string why;
  INFO(path << ": " << why);
  CHECK_MESSAGE(well_formed_xml(svg, why), why);
  CHECK(contains(svg, "<svg"));
  return svg;
}

}  // namespace

TEST_CASE("the SVG checker of this suite rejects broken XML") {
  std::string why;
  CHECK(
      well_formed_xml("<?xml version='1.0'?>\n<svg a=\"1\"><g><text>x &amp; y</text></g>"
                      "<path d='M0'/></svg>\n",
                      why));
  for (const char* bad : {"<svg><g></svg>", "<svg><text>a & b</text></svg>", "<svg a=1></svg>",
                          "<svg></svg><svg></svg>", "<svg>", "text<svg/>", ""}) {
    CAPTURE(bad);
    CHECK_FALSE(well_formed_xml(bad, why));
  }
}

TEST_CASE("plot draws g(r) of a real run as PNG and SVG, with legend, units and error bands") {
  TempDir out("plot-out");
  std::string log;
  // The default output: rdf.png in the run's directory.
  REQUIRE(pairhist_cli("plot " + shell_quote(run_dir()), log) == 0);
  INFO(log);
  CHECK(contains(log, "wrote"));
  check_png(run_dir() + "/rdf.png", 900, 600);

  REQUIRE(pairhist_cli("plot " + shell_quote(run_dir()) + " --size 640x480 -o " +
                           shell_quote(out.file("g.png")),
                       log) == 0);
  check_png(out.file("g.png"), 640, 480);

  REQUIRE(pairhist_cli("plot " + shell_quote(run_dir() + "/pairhist.h5") + " --coordination -o " +
                           shell_quote(out.file("g.svg")),
                       log) == 0);
  const std::string svg = checked_svg(out.file("g.svg"));
  for (const char* text : {">O-O<", ">O-H<", ">H-H<", ">n O-O<", ">r (nm)<", ">g(r)<",
                           "coordination number", "standard error", "101 frames"})
    CHECK_MESSAGE(contains(svg, text), text);
  // Nothing but the two plots was written (no temporary files left behind).
  CHECK(out.entries() == 2);
}

TEST_CASE("plot --pairs picks pairs in either order; --title is drawn as given") {
  TempDir out("plot-pairs");
  std::string log;
  REQUIRE(pairhist_cli("plot " + shell_quote(run_dir() + "/rdf.csv") +
                           " --pairs H-O --title 'it'\"'\"'s \"quoted\" \\ & <odd>' -o " +
                           shell_quote(out.file("oh.svg")),
                       log) == 0);
  INFO(log);
  CHECK(contains(log, "g(r) of O-H"));
  const std::string svg = checked_svg(out.file("oh.svg"));
  CHECK(contains(svg, ">O-H<"));
  CHECK_FALSE(contains(svg, ">O-O<"));
  CHECK_FALSE(contains(svg, ">H-H<"));
  CHECK(contains(svg, "it's"));
  CHECK(contains(svg, "&amp; &lt;odd"));  // escaped for XML by gnuplot
}

TEST_CASE("the run-output reader gives the same run from pairhist.h5 and rdf.csv") {
  using pairhist::io::read_run_output;
  const auto h5 = read_run_output(run_dir());
  const auto csv = read_run_output(run_dir() + "/rdf.csv");
  CHECK(h5.path == run_dir() + "/pairhist.h5");
  CHECK(h5.length_unit == "nm");
  CHECK(csv.length_unit == "nm");
  CHECK(h5.n_frames == 101);
  CHECK(csv.n_frames == 101);
  CHECK(h5.r_max == doctest::Approx(1.2));
  CHECK(csv.r_max == doctest::Approx(1.2));
  REQUIRE(h5.r.size() == 120);
  REQUIRE(csv.r.size() == 120);
  CHECK(h5.has_errors());
  CHECK(csv.has_errors());
  REQUIRE(h5.pairs.size() == 3);
  REQUIRE(csv.pairs.size() == 3);
  for (size_t i = 0; i < 3; ++i) {
    // Both in the run's order O-O, O-H, H-H.
    CHECK(h5.pairs[i].label == std::vector<std::string>{"O-O", "O-H", "H-H"}[i]);
    CHECK(csv.pairs[i].label == h5.pairs[i].label);
    CHECK(csv.pairs[i].counts == h5.pairs[i].counts);
    for (size_t k = 0; k < 120; ++k) {
      CHECK(csv.r[k] == doctest::Approx(h5.r[k]).epsilon(1e-9));
      if (std::isnan(h5.pairs[i].g[k])) continue;
      CHECK(csv.pairs[i].g[k] == doctest::Approx(h5.pairs[i].g[k]).epsilon(1e-9));
      CHECK(csv.pairs[i].coordination[k] ==
            doctest::Approx(h5.pairs[i].coordination[k]).epsilon(1e-9));
      CHECK(csv.pairs[i].g_error[k] == doctest::Approx(h5.pairs[i].g_error[k]).epsilon(1e-9));
    }
  }
  double oo = 0;
  for (double c : h5.pairs[0].counts) oo += c;
  CHECK(oo > 0);
}

TEST_CASE("runs without g(r) are plotted as counts, and said so; Angstrom runs say Å") {
  TempDir d("plot-counts");
  std::string log;
  const std::string xyz = kData + "/fixtures/ase_plain.xyz";
  REQUIRE(pairhist_cli("run " + xyz + " --top " + xyz +
                           " --species A=* --rmax 0.5 --nbins 10 --ncpu 1 -q -o " +
                           shell_quote(d.file("counts")),
                       log) == 0);
  REQUIRE(pairhist_cli("plot " + shell_quote(d.file("counts")) + " --coordination -o " +
                           shell_quote(d.file("counts.svg")),
                       log) == 0);
  INFO(log);
  CHECK(contains(log, "plotting pair counts"));
  std::string svg = checked_svg(d.file("counts.svg"));
  CHECK(contains(svg, "pairs per bin and frame"));
  CHECK(contains(svg, "no g(r)"));
  CHECK(contains(svg, ">A-A<"));

  REQUIRE(pairhist_cli("run " + kData + "/spce_water.xtc --top " + kData + "/spce_water.gro" +
                           " --species O=OW --rmax 10 --nbins 50 --units angstrom --last 3" +
                           " --ncpu 1 -q -o " + shell_quote(d.file("angstrom")),
                       log) == 0);
  REQUIRE(pairhist_cli("plot " + shell_quote(d.file("angstrom")) + " -o " +
                           shell_quote(d.file("angstrom.svg")),
                       log) == 0);
  svg = checked_svg(d.file("angstrom.svg"));
  CHECK(contains(svg, "r (Å)"));
}

TEST_CASE("plot draws I(q) and S(q) with error bands: periodic on linear axes, clusters log") {
  TempDir out("plot-q");
  std::string log;
  const std::string to = " -o " + shell_quote(out.dir.string());
  REQUIRE_MESSAGE(
      pairhist_cli("scattering " + shell_quote(run_dir()) + " --cut-sphere-intensity" + to, log) ==
          0,
      log);
  REQUIRE_MESSAGE(pairhist_cli("scattering " + shell_quote(run_dir()) + to, log) == 0, log);
  // A gnuplot that keeps a copy of its script, to see the axes asked for.
  pairhist::test::write_all(out.file("gnuplot"), "#!/bin/sh\ntee \"$0.script\" | gnuplot\n");
  std::filesystem::permissions(out.file("gnuplot"), std::filesystem::perms::owner_all);
  const std::string env = "PAIRHIST_GNUPLOT=" + shell_quote(out.file("gnuplot"));

  // The default output: the table's name with .png. The run is periodic (its cut-sphere I(q)):
  // linear axes, the range below 2 pi / r_max shaded and marked; 4 interval blocks: bands.
  REQUIRE_MESSAGE(pairhist_cli("plot " + shell_quote(out.file("intensity.csv")), log, env) == 0,
                  log);
  CHECK(contains(log, "I(q) of I, I_O-O, I_O-H, I_H-H"));
  check_png(out.file("intensity.png"), 900, 600);
  std::string script = read_all(out.file("gnuplot.script"));
  CHECK_FALSE(contains(script, "set logscale"));
  CHECK(contains(script, "set object 1 rect from graph 0, graph 0 to first 5.235987756, graph 1"));
  CHECK(contains(script, "set arrow 1 from first 5.235987756, graph 0"));
  CHECK(contains(script, "$q using 1:3:4 with filledcurves lc 1 notitle"));    // I's band
  CHECK(contains(script, "$q using 1:12:13 with filledcurves lc 4 notitle"));  // I_H-H's

  REQUIRE(pairhist_cli("plot " + shell_quote(out.file("intensity.csv")) + " -o " +
                           shell_quote(out.file("i.svg")),
                       log) == 0);
  std::string svg = checked_svg(out.file("i.svg"));
  for (const char* text : {">I<", ">I_O-O<", ">I_H-H<", ">q (nm^-1)<", ">I(q)<", "standard error",
                           "2π/r_max", "not reliable"})
    CHECK_MESSAGE(contains(svg, text), text);

  REQUIRE(pairhist_cli("plot " + shell_quote(out.file("sq.csv")) + " --pairs H-O", log, env) == 0);
  CHECK(contains(log, "S(q) of S, S_O-H"));
  script = read_all(out.file("gnuplot.script"));
  CHECK_FALSE(contains(script, "set logscale"));  // S oscillates about 1, partials go negative
  CHECK(contains(script, "set object 1 rect"));
  CHECK(contains(script, "$q using 1:6:7 with filledcurves lc 2 notitle"));  // S_O-H's band
  REQUIRE(pairhist_cli(
              "plot " + shell_quote(out.file("sq.csv")) + " -o " + shell_quote(out.file("s.svg")),
              log) == 0);
  svg = checked_svg(out.file("s.svg"));
  for (const char* text : {">S<", ">S_O-O<", ">S_O-H<", ">S_H-H<", ">S(q)<", "standard error"})
    CHECK_MESSAGE(contains(svg, text), text);

  // A cluster (no box): its intensity on log axes, points at q = 0 left out and said; no
  // reliable range, no bands (one block). Its excess over itself: log q, linear dI.
  pairhist::test::write_all(out.file("cluster.xyz"), "3\nno box\nO 0 0 0\nO 0.15 0 0\nO 0 0.2 0\n");
  REQUIRE(pairhist_cli("run " + shell_quote(out.file("cluster.xyz")) + " --top " +
                           shell_quote(out.file("cluster.xyz")) +
                           " --species O=O --rmax 1 --nbins 20 --ncpu 1 -q -o " +
                           shell_quote(out.file("cluster")) + " --scattering xray",
                       log) == 0);
  REQUIRE(pairhist_cli("plot " + shell_quote(out.file("cluster/intensity.csv")) + " -o " +
                           shell_quote(out.file("c.svg")),
                       log, env) == 0);
  script = read_all(out.file("gnuplot.script"));
  CHECK(contains(script, "set logscale x\n"));
  CHECK(contains(script, "set logscale y\n"));
  CHECK_FALSE(contains(script, "set object"));
  CHECK_FALSE(contains(script, "filledcurves"));
  CHECK(contains(checked_svg(out.file("c.svg")), "not drawn"));
  REQUIRE(pairhist_cli("scattering " + shell_quote(out.file("cluster")) + " --subtract " +
                           shell_quote(out.file("cluster")),
                       log) == 0);
  REQUIRE(pairhist_cli("plot " + shell_quote(out.file("cluster/excess.csv")) + " -o " +
                           shell_quote(out.file("e.svg")),
                       log, env) == 0);
  CHECK(contains(log, "dI(q) of dI, dI_O-O"));
  script = read_all(out.file("gnuplot.script"));
  CHECK(contains(script, "set logscale x\n"));
  CHECK_FALSE(contains(script, "set logscale y"));
  CHECK(contains(checked_svg(out.file("e.svg")), ">dI(q)<"));

  // Bad tables and options: one line each.
  pairhist::test::write_all(out.file("bad.csv"), "# x\nq_per_nm,I\n1,2\n2,abc\n");
  const std::pair<std::string, std::string> bad[] = {
      {shell_quote(out.file("bad.csv")), "bad.csv line 4: 'abc' is not a number"},
      {shell_quote(out.file("sq.csv")) + " --coordination", "--coordination"},
      {shell_quote(out.file("sq.csv")) + " --pairs X-O", "unknown pair 'X-O'"},
  };
  for (const auto& [args, expect] : bad) {
    CAPTURE(args);
    CHECK(pairhist_cli("plot " + args, log) != 0);
    CHECK(count_lines(log) == 1);
    CHECK_MESSAGE(contains(log, expect), log);
  }
  CHECK_FALSE(std::filesystem::exists(out.file("bad.png")));
}

TEST_CASE("plot errors: one line, non-zero exit, no plot written or replaced") {
  TempDir d("plot-bad");
  pairhist::test::write_all(d.file("garbage.h5"), "not HDF5 at all\n");
  pairhist::test::write_all(d.file("garbage.csv"), "a,b\n1,2\n");
  pairhist::test::write_all(d.file("old.png"), "previous plot");
  struct Bad {
    std::string args, env, expect;
  };
  const std::string run = shell_quote(run_dir());
  const std::string to = " -o " + shell_quote(d.file("new.png"));
  const std::vector<Bad> cases = {
      {"plot " + run + to, "PAIRHIST_GNUPLOT=/nonexistent/gnuplot", "install gnuplot-nox"},
      {"plot " + run + " -o " + shell_quote(d.file("old.png")), "PAIRHIST_GNUPLOT=/bin/false",
       "gnuplot failed"},
      {"plot " + shell_quote(d.file("missing")) + to, "", "no such file"},
      {"plot " + shell_quote(d.file("garbage.h5")) + to, "", "not an HDF5 file"},
      {"plot " + shell_quote(d.file("garbage.csv")) + to, "", "not an rdf.csv"},
      {"plot " + shell_quote(d.dir.string()) + to, "", "neither pairhist.h5 nor rdf.csv"},
      {"plot " + run + " --pairs O-O,X-Y" + to, "", "unknown pair 'X-Y'"},
      {"plot " + run + " -o " + shell_quote(d.file("plot.pdf")), "", ".png or .svg"},
      {"plot " + run + " --size 10x10" + to, "", "--size"},
      {"plot " + run + " --size big" + to, "", "--size"},
  };
  for (const Bad& c : cases) {
    CAPTURE(c.args);
    std::string log;
    CHECK(pairhist_cli(c.args, log, c.env) != 0);
    CHECK(count_lines(log) == 1);
    CHECK(contains(log, "error"));
    CHECK_MESSAGE(contains(log, c.expect), log);
  }
  CHECK(read_all(d.file("old.png")) == "previous plot");
  CHECK(d.entries() == 3);  // garbage.h5, garbage.csv, old.png: nothing new, no temporaries
  std::string log;
  pairhist_cli("plot " + run + " --pairs O-O,X-Y" + to, log);
  CHECK(contains(log, "has O-O, O-H, H-H"));
}
