#include "drivers/cli/config_file.hpp"

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

#include "drivers/cli/option_rules.hpp"
#include "io/common/input_path.hpp"
#include "pairhist/errors.hpp"

namespace pairhist {

namespace {

// For messages: 15 digits print 0.3 as 0.3.
std::string number_text(double v) {
  std::ostringstream s;
  s.precision(15);
  s << v;
  return s.str();
}

class Reader {
 public:
  explicit Reader(std::string path) : path_(std::move(path)) {}

  [[noreturn]] void fail(const std::string& key, const std::string& problem) const {
    throw UsageError(path_ + ": " + (key.empty() ? "" : key + ": ") + problem);
  }

  std::string scalar(const YAML::Node& n, const std::string& key) const {
    if (!n.IsScalar()) fail(key, "expected a single value");
    return n.Scalar();
  }
  double number(const YAML::Node& n, const std::string& key) const {
    try {
      if (n.IsScalar()) {
        const double v = n.as<double>();
        if (std::isfinite(v)) return v;
      }
    } catch (const YAML::Exception&) {
    }
    fail(key, "expected a number");
  }
  long long integer(const YAML::Node& n, const std::string& key) const {
    try {
      if (n.IsScalar()) return n.as<long long>();
    } catch (const YAML::Exception&) {
    }
    fail(key, "expected an integer");
  }
  bool boolean(const YAML::Node& n, const std::string& key) const {
    try {
      if (n.IsScalar()) return n.as<bool>();
    } catch (const YAML::Exception&) {
    }
    fail(key, "expected true or false");
  }

  YAML::Node load() const {
    // YAML's own words for a directory are "basic_filebuf::underflow error reading the file".
    if (const std::string problem = io::input_file_problem(path_); !problem.empty())
      throw UsageError(path_ + ": cannot read the config file (" + problem + ")");
    try {
      return YAML::LoadFile(path_);
    } catch (const YAML::BadFile&) {
      throw UsageError(path_ + ": cannot read the config file");
    } catch (const YAML::Exception& e) {
      throw UsageError(path_ + ": line " + std::to_string(e.mark.line + 1) +
                       ": YAML syntax error: " + excerpt(e.msg, 200));
    }
  }

  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

bool is_cadishi(const YAML::Node& root) {
  static const std::set<std::string> sections = {"general", "histogram", "cpu", "gpu", "input"};
  for (const auto& kv : root) {
    const std::string key = kv.first.Scalar();
    if (sections.count(key) != 0 || (key == "output" && kv.second.IsMap())) return true;
  }
  return false;
}

void read_pairhist(const Reader& r, const YAML::Node& root, const std::vector<std::string>& known,
                   RunConfig& out) {
  const std::set<std::string> keys(known.begin(), known.end());
  for (const auto& kv : root) {
    const std::string key = kv.first.Scalar();
    if (keys.count(key) == 0) {
      std::string list;
      for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
      r.fail("", "unknown key '" + excerpt(key) + "' (known: " + list + ")");
    }
    const YAML::Node& v = kv.second;
    if (v.IsNull()) continue;
    std::vector<std::string> values;
    if (v.IsScalar()) {
      values.push_back(v.Scalar());
    } else if (v.IsSequence()) {
      for (const auto& e : v) values.push_back(r.scalar(e, key));
    } else if (key == "species") {  // NAME: SELECTION
      for (const auto& e : v) values.push_back(e.first.Scalar() + "=" + r.scalar(e.second, key));
    } else {
      r.fail(key, "expected a value or a list");
    }
    out.settings.emplace_back(key, values);
  }
}

// CADISHI's template keys: those we map, and those without a meaning for pairhist.
void read_cadishi(const Reader& r, const YAML::Node& root, RunConfig& out) {
  static const std::set<std::string> sections = {"general", "histogram", "cpu",
                                                 "gpu",     "input",     "output"};
  static const std::set<std::string> ignored = {"general.redirect_output",
                                                "general.verbose",
                                                "general.numa_aware",
                                                "general.profile",
                                                "cpu.module",
                                                "cpu.workers",
                                                "cpu.threads",
                                                "cpu.check_input",
                                                "gpu.module",
                                                "gpu.workers",
                                                "gpu.check_input",
                                                "output.file",
                                                "output.compression",
                                                "output.write_h5",
                                                "output.write_npx",
                                                "output.write_npy",
                                                "output.write_xyz",
                                                "output.flush_interval"};
  static const std::set<std::string> mapped = {
      "histogram.r_max", "histogram.dr",       "histogram.sum",   "cpu.precision",
      "gpu.precision",   "input.file",         "input.first",     "input.last",
      "input.step",      "input.periodic_box", "output.directory"};
  std::map<std::string, YAML::Node> values;
  for (const auto& section : root) {
    const std::string name = section.first.Scalar();
    if (sections.count(name) == 0)
      r.fail("", "unknown section '" + excerpt(name) +
                     "' (a CADISHI histograms.yaml has general, histogram, cpu, gpu, input, "
                     "output)");
    if (section.second.IsNull()) continue;
    if (!section.second.IsMap()) r.fail(name, "expected a section of key: value lines");
    for (const auto& kv : section.second) {
      const std::string key = name + "." + kv.first.Scalar();
      if (ignored.count(key) != 0)
        out.ignored.push_back(key);
      else if (mapped.count(key) != 0)
        values[key] = kv.second;
      else
        r.fail("", "unknown key '" + excerpt(key) + "' (not a CADISHI histograms.yaml key)");
    }
  }
  auto given = [&](const std::string& key) {
    auto it = values.find(key);
    return it != values.end() && !it->second.IsNull();
  };
  auto set = [&](const std::string& flag, const std::string& value) {
    out.settings.push_back({flag, {value}});
  };

  if (!given("histogram.r_max")) r.fail("histogram.r_max", "missing");
  const double r_max = r.number(values["histogram.r_max"], "histogram.r_max");
  if (!(r_max > 0))
    r.fail("histogram.r_max",
           "must be positive (a negative r_max, taken from a Capriqorn pipeline, is not "
           "supported)");
  // CADISHI's defaults where the file is silent.
  const double dr = given("histogram.dr") ? r.number(values["histogram.dr"], "histogram.dr") : 0.01;
  if (!(dr > 0)) r.fail("histogram.dr", "must be positive");
  const double ratio = r_max / dr;
  const double nbins = std::round(ratio);
  if (nbins < 1 || std::fabs(ratio - nbins) > 1e-9 * ratio || nbins > 2147483647.0)
    r.fail("histogram.dr", "dr " + number_text(dr) + " does not divide r_max " +
                               number_text(r_max) + " into a whole number of bins");
  set("rmax", values["histogram.r_max"].Scalar());  // the file's text: no rounding on the way
  set("units", "angstrom");
  set("nbins", std::to_string(static_cast<long long>(nbins)));
  const long long sum =
      given("histogram.sum") ? r.integer(values["histogram.sum"], "histogram.sum") : 1;
  if (sum < 1) r.fail("histogram.sum", "must be at least 1");
  set("interval", std::to_string(sum));

  std::string precision;
  for (const char* key : {"cpu.precision", "gpu.precision"}) {
    if (!given(key)) continue;
    const std::string p = r.scalar(values[key], key);
    if (p != "single" && p != "double") r.fail(key, "must be single or double");
    if (!precision.empty() && p != precision)
      r.fail(key, "cpu and gpu precisions differ; pairhist uses one precision for all workers");
    precision = p;
  }
  if (!precision.empty()) set("precision", precision);

  if (given("input.file")) set("trajectory", r.scalar(values["input.file"], "input.file"));
  if (given("input.first")) {
    const long long first = r.integer(values["input.first"], "input.first");
    if (first < 1) r.fail("input.first", "CADISHI numbers frames from 1");
    set("first", std::to_string(first - 1));
  }
  if (given("input.last")) {
    const long long last = r.integer(values["input.last"], "input.last");
    if (last < 1) r.fail("input.last", "CADISHI numbers frames from 1");
    set("last", std::to_string(last - 1));
  }
  if (given("input.step")) {
    const long long step = r.integer(values["input.step"], "input.step");
    if (step < 1) r.fail("input.step", "must be at least 1");
    set("step", std::to_string(step));
  }
  if (given("input.periodic_box"))
    r.fail("input.periodic_box",
           "only null (the box stored with each frame) is supported; pairhist cannot force or "
           "drop a box");
  if (given("output.directory"))
    set("output", r.scalar(values["output.directory"], "output.directory"));
}

}  // namespace

RunConfig read_run_config(const std::string& path, const std::vector<std::string>& known_keys) {
  const Reader r(path);
  const YAML::Node root = r.load();
  RunConfig out;
  if (root.IsNull()) r.fail("", "empty config file");
  if (!root.IsMap()) r.fail("", "expected key: value lines at the top level");
  if (is_cadishi(root)) {
    out.format = RunConfig::Format::cadishi;
    read_cadishi(r, root, out);
  } else {
    read_pairhist(r, root, known_keys, out);
  }
  return out;
}

void apply_run_config(CLI::App& cmd, const std::string& path) {
  std::vector<std::string> known;
  std::map<std::string, CLI::Option*> options;
  for (CLI::Option* opt : cmd.get_options()) {
    // The long name, else the positional's (the trajectory, also -f), else the short one.
    std::string key = !opt->get_lnames().empty()     ? opt->get_lnames()[0]
                      : !opt->get_name(true).empty() ? opt->get_name(true)
                                                     : opt->get_name();
    if (key == "config" || key == "help" || key.empty()) continue;
    known.push_back(key);
    options[key] = opt;
  }
  const RunConfig config = read_run_config(path, known);
  if (!config.ignored.empty()) {
    std::string list;
    for (const auto& k : config.ignored) list += (list.empty() ? "" : ", ") + k;
    std::fprintf(stderr,
                 "pairhist: warning: %s: ignoring CADISHI settings without a meaning here: %s\n",
                 path.c_str(), list.c_str());
  }
  for (const auto& [key, values] : config.settings) {
    auto it = options.find(key);
    if (it == options.end())
      throw UsageError(path + ": " + key + ": not a setting of this command");
    CLI::Option* opt = it->second;
    if (opt->count() > 0) continue;  // the command line wins
    try {
      opt->clear();
      opt->add_result(values);
      opt->run_callback();
    } catch (const CLI::Error& e) {
      throw UsageError(path + ": " + key + ": " + excerpt(parse_error_text(e), 200));
    }
  }
}

}  // namespace pairhist
