// pairhist.run(): the `pairhist run` job with the command's settings (long flag names, values as
// text, optionally from its YAML config file), returning the results instead of writing files.

#include <atomic>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "analysis/rdf.hpp"
#include "analysis/sphere_cut.hpp"
#include "drivers/cli/config_file.hpp"
#include "drivers/cli/option_rules.hpp"
#include "drivers/cli/run_command.hpp"
#include "drivers/cli/run_options.hpp"
#include "drivers/job/trajectory_job.hpp"
#include "io/common/child_process.hpp"
#include "io/common/input_path.hpp"
#include "io/results/histogram_result_reader.hpp"
#include "pairhist/errors.hpp"
#include "python/src/arrays.hpp"
#include "python/src/bindings.hpp"
#include "python/src/interruptible.hpp"
#include "tasks/algorithm_choice.hpp"

namespace pairhist::python {
namespace {

using Values = std::vector<std::string>;
using Setter = std::function<void(JobOptions&, const Values&)>;

[[noreturn]] void bad_value(const std::string& key, const std::string& value,
                            const std::string& expected) {
  throw UsageError(key + ": expected " + expected + ", got '" + value + "'");
}

const std::string& single(const std::string& key, const Values& v) {
  if (v.size() != 1) throw UsageError(key + ": expected one value");
  return v[0];
}

template <class T>
T parse_number(const std::string& key, const Values& v) {
  const std::string& text = single(key, v);
  try {
    size_t used = 0;
    T value;
    if constexpr (std::is_floating_point_v<T>)
      value = static_cast<T>(std::stod(text, &used));
    else
      value = static_cast<T>(std::stoll(text, &used));
    if (used != text.size()) throw std::invalid_argument(text);
    return value;
  } catch (const std::logic_error&) {
    bad_value(key, text, std::is_floating_point_v<T> ? "a number" : "an integer");
  }
}

std::string choice(const std::string& key, const Values& v, std::initializer_list<const char*> ok) {
  const std::string& text = single(key, v);
  std::string list;
  for (const char* o : ok) {
    if (text == o) return text;
    list += (list.empty() ? "" : ", ") + std::string(o);
  }
  bad_value(key, text, "one of " + list);
}

/// `run`'s settings that describe the job; those about files the command would write are not
/// settings of run() and are skipped when they come from a config file.
const std::map<std::string, Setter>& setters() {
  static const std::map<std::string, Setter> table = {
      {"trajectory",
       [](JobOptions& o, const Values& v) { o.trajectory = single("trajectory", v); }},
      {"top", [](JobOptions& o, const Values& v) { o.topology = single("top", v); }},
      {"species",
       [](JobOptions& o, const Values& v) {
         o.species.clear();
         for (const auto& s : v) o.species.push_back(parse_species(s));
       }},
      {"pairs",
       [](JobOptions& o, const Values& v) {
         o.pairs.clear();
         for (const auto& text : v) {  // "A-B,C-D" as --pairs, or one pair a value
           size_t begin = 0;
           for (size_t end; (end = text.find(',', begin)) != std::string::npos; begin = end + 1)
             o.pairs.push_back(text.substr(begin, end - begin));
           o.pairs.push_back(text.substr(begin));
         }
       }},
      {"rmax", [](JobOptions& o, const Values& v) { o.r_max = parse_number<double>("rmax", v); }},
      {"rmin", [](JobOptions& o, const Values& v) { o.r_min = parse_number<double>("rmin", v); }},
      // Read by run() itself (resolve_bins): no JobOptions member.
      {"bin", [](JobOptions&, const Values& v) { parse_number<double>("bin", v); }},
      {"sphere",
       [](JobOptions& o, const Values& v) {
         o.sphere = single("sphere", v);
         analysis::parse_sphere_option(o.sphere);  // UsageError naming what is wrong
       }},
      {"nbins", [](JobOptions& o, const Values& v) { o.nbins = parse_number<int>("nbins", v); }},
      {"units",
       [](JobOptions& o, const Values& v) {
         o.units = choice("units", v, {"nm", "angstrom"});
       }},
      {"precision",
       [](JobOptions& o, const Values& v) {
         o.precision = parse_precision(choice("precision", v, {"single", "double"}));
       }},
      {"volume",
       [](JobOptions& o, const Values& v) { o.volume = parse_number<double>("volume", v); }},
      {"index", [](JobOptions& o, const Values& v) { o.index_file = single("index", v); }},
      {"exclude",
       [](JobOptions& o, const Values& v) {
         o.exclude = choice("exclude", v, {"none", "residue", "topology"});
       }},
      {"norm",
       [](JobOptions& o, const Values& v) {
         o.norm = choice("norm", v, {"rdf", "density", "none"});
       }},
      {"interval",
       [](JobOptions& o, const Values& v) { o.interval = parse_number<int64_t>("interval", v); }},
      {"first",
       [](JobOptions& o, const Values& v) { o.first = parse_number<int64_t>("first", v); }},
      {"last", [](JobOptions& o, const Values& v) { o.last = parse_number<int64_t>("last", v); }},
      {"step", [](JobOptions& o, const Values& v) { o.step = parse_number<int64_t>("step", v); }},
      {"begin",
       [](JobOptions& o, const Values& v) { o.begin_time = parse_number<double>("begin", v); }},
      {"end", [](JobOptions& o, const Values& v) { o.end_time = parse_number<double>("end", v); }},
      {"sched", [](JobOptions& o, const Values& v) { o.scheduler = single("sched", v); }},
      {"schedule",
       [](JobOptions& o, const Values& v) {
         o.whole_frames = choice("schedule", v, {"tasks", "static"}) == "static";
       }},
      {"algorithm",
       [](JobOptions& o, const Values& v) {
         o.algorithm = parse_algorithm(choice("algorithm", v, {"auto", "all-pairs", "cell-list"}));
       }},
      {"cell-reach",
       [](JobOptions& o, const Values& v) {
         o.cell_reach = parse_number<int>("cell-reach", v);
         if (o.cell_reach < 0 || o.cell_reach > kMaxCellReach)
           throw UsageError("cell-reach must be 0.." + std::to_string(kMaxCellReach));
       }},
      {"cell-order",
       [](JobOptions& o, const Values& v) {
         o.cell_order = choice("cell-order", v, {"row-major", "morton", "hilbert"});
       }},
      {"ncpu", [](JobOptions& o, const Values& v) { o.ncpu = parse_number<int>("ncpu", v); }},
      {"ncuda", [](JobOptions& o, const Values& v) { o.ncuda = parse_number<int>("ncuda", v); }},
      {"frames-in-flight",
       [](JobOptions& o, const Values& v) {
         o.frames_in_flight = parse_number<int>("frames-in-flight", v);
       }},
      {"reserve-cores",
       [](JobOptions& o, const Values& v) {
         o.reserve_cores = parse_number<int>("reserve-cores", v);
       }},
      {"memory-budget",
       [](JobOptions& o, const Values& v) {
         o.memory_budget_mib = parse_number<uint64_t>("memory-budget", v);
       }},
      {"decode-threads",
       [](JobOptions& o, const Values& v) {
         o.decode_threads = parse_number<int>("decode-threads", v);
         if (o.decode_threads < 0) throw UsageError("decode-threads must not be negative");
       }},
      {"reduction",
       [](JobOptions& o, const Values& v) {
         o.sum_tasks = choice("reduction", v, {"redux", "sum"}) == "sum";
       }},
      {"task-pairs",
       [](JobOptions& o, const Values& v) {
         o.task_pairs = parse_number<uint64_t>("task-pairs", v);
       }},
  };
  return table;
}

/// `run` flags about files and the terminal: accepted in a config file, without effect here.
bool output_only(const std::string& key) {
  for (const char* k : {"output", "report", "activity-svg", "task-trace", "lp-bound", "lp-file",
                        "progress", "quiet"})
    if (key == k) return true;
  return false;
}

py::array_t<double> array_of(const std::vector<double>& v) {
  py::array_t<double> a(static_cast<py::ssize_t>(v.size()));
  std::copy(v.begin(), v.end(), a.mutable_data());
  return a;
}

py::array_t<uint64_t> array_of(const std::vector<uint64_t>& v) {
  py::array_t<uint64_t> a(static_cast<py::ssize_t>(v.size()));
  std::copy(v.begin(), v.end(), a.mutable_data());
  return a;
}

/// What a run's result holds, as run() and read_run() return it.
py::dict histogram_dict(const HistogramResult& r) {
  py::dict d;
  py::dict species;
  for (const auto& s : r.species) species[py::str(s.name)] = s.count;
  d["species"] = species;
  d["units"] = r.length_unit;
  d["r_max"] = r.r_max;
  d["r_min"] = r.r_min;
  d["nbins"] = r.nbins;
  d["edges"] = array_of(analysis::bin_edges(r.r_min, r.r_max, r.nbins));
  d["r"] = array_of(analysis::bin_centres(r.r_min, r.r_max, r.nbins));
  d["box_kind"] = r.box_kind;
  d["precision"] = r.precision;
  d["norm"] = r.norm;
  d["exclude"] = r.exclude;
  py::array_t<int64_t> frame_indices(static_cast<py::ssize_t>(r.frame_indices.size()));
  std::copy(r.frame_indices.begin(), r.frame_indices.end(), frame_indices.mutable_data());
  d["frames"] = frame_indices;
  d["times"] = array_of(r.frame_times);
  d["volumes"] = array_of(r.volumes);
  py::dict counts, normalised, coordination, errors, pairs_per_frame, excluded, shared;
  const bool normalise = analysis::can_normalise(r);
  for (size_t p = 0; p < r.pairs.size(); ++p) {
    const PairHistogram& h = r.pairs[p];
    const py::tuple key = py::make_tuple(r.species[static_cast<size_t>(h.a)].name,
                                         r.species[static_cast<size_t>(h.b)].name);
    counts[key] = array_of(h.counts);
    pairs_per_frame[key] = r.pairs_per_frame(h);
    excluded[key] = h.excluded_pairs;
    shared[key] = h.shared_atoms;
    if (normalise) {
      const analysis::RdfCurve curve = analysis::compute_rdf(r, h);
      normalised[key] = array_of(curve.g);
      coordination[key] = array_of(curve.coordination);
      const std::vector<double> err = analysis::rdf_block_error(r, p);
      if (!err.empty()) errors[key] = array_of(err);
    }
  }
  d["counts"] = counts;
  // g(r), or the density / number per frame that `norm` asks for (None without a box or volume).
  d["rdf"] = normalise ? py::object(normalised) : py::none();
  d["coordination"] = normalise ? py::object(coordination) : py::none();
  d["rdf_error"] = errors;
  d["pairs_per_frame"] = pairs_per_frame;
  d["excluded_pairs"] = excluded;
  d["shared_atoms"] = shared;
  py::list intervals;
  for (const IntervalBlock& b : r.intervals) {
    py::dict block;
    block["frames"] = py::slice(static_cast<py::ssize_t>(b.frame_begin),
                                static_cast<py::ssize_t>(b.frame_end), 1);
    py::dict c;
    for (size_t p = 0; p < r.pairs.size(); ++p)
      c[py::make_tuple(r.species[static_cast<size_t>(r.pairs[p].a)].name,
                       r.species[static_cast<size_t>(r.pairs[p].b)].name)] = array_of(b.counts[p]);
    block["counts"] = c;
    intervals.append(block);
  }
  d["intervals"] = intervals;
  // Per frame, where the species' atoms vary: a --sphere run's atoms inside the sphere, a dynamic
  // species' atoms (and then every pair's pairs of the frame); None where they do not vary.
  const auto label = [&r](const PairHistogram& h) {
    return py::make_tuple(r.species[static_cast<size_t>(h.a)].name,
                          r.species[static_cast<size_t>(h.b)].name);
  };
  if (r.frame_species_counts.empty()) {
    d["frame_species_counts"] = py::none();
  } else {
    py::dict sizes;
    for (size_t s = 0; s < r.species.size(); ++s) {
      py::array_t<int64_t> n(static_cast<py::ssize_t>(r.frame_species_counts.size()));
      for (size_t f = 0; f < r.frame_species_counts.size(); ++f)
        n.mutable_data()[f] = r.frame_species_counts[f][s];
      sizes[py::str(r.species[s].name)] = n;
    }
    d["frame_species_counts"] = sizes;
  }
  if (r.frame_pairs.empty()) {
    d["frame_pairs"] = py::none();
  } else {
    py::dict pairs;
    for (size_t p = 0; p < r.pairs.size(); ++p) {
      py::array_t<uint64_t> n(static_cast<py::ssize_t>(r.frame_pairs.size()));
      for (size_t f = 0; f < r.frame_pairs.size(); ++f) n.mutable_data()[f] = r.frame_pairs[f][p];
      pairs[label(r.pairs[p])] = n;
    }
    d["frame_pairs"] = pairs;
  }
  d["sphere"] = r.sphere.empty() ? py::object(py::none()) : py::object(py::str(r.sphere));
  d["sphere_centre"] =
      r.sphere.empty() ? py::object(py::none()) : py::object(py::str(r.sphere_centre));
  return d;
}

py::dict result_dict(const JobOutcome& out) {
  const HistogramResult& r = out.result;
  py::dict d = histogram_dict(r);
  // As read_run(): a run that ended early (a trajectory cut inside its last frame) says why.
  d["complete"] = r.complete;
  d["stopped_by"] = r.stopped_by;
  d["seconds"] = out.seconds;
  d["pairs_examined"] = out.pairs_examined;
  d["cpu_workers"] = out.cpu_workers;
  d["cpu_kernels"] = out.activity.cpu_kernels;  // "avx512", "avx2"; "" without CPU workers
  d["cuda_workers"] = out.cuda_workers;
  d["scheduler"] = out.scheduler;
  d["tasks"] = out.tasks;
  py::dict algorithms;
  for (const PairWork& w : out.activity.pair_work)
    algorithms[py::make_tuple(r.species[static_cast<size_t>(w.species_a)].name,
                              r.species[static_cast<size_t>(w.species_b)].name)] =
        algorithm_name(w.algorithm);
  d["algorithms"] = algorithms;
  return d;
}

/// settings: (long flag name, values) as the Python layer spelled them; `config` (a YAML file
/// of `pairhist run --config`) fills in what they do not give. With `output` the run writes what
/// `pairhist run -o OUTPUT [--resume] [--overwrite]` writes, its checkpoints included. Ctrl-C
/// stops it between frames (KeyboardInterrupt), leaving its checkpoint in `output`.
py::dict run(const std::vector<std::pair<std::string, Values>>& settings, const std::string& config,
             const std::string& output, bool resume, bool overwrite) {
  std::map<std::string, Values> given;
  for (const auto& [key, values] : settings) {
    if (setters().count(key) == 0)
      throw py::type_error("run() got an unknown setting '" + key + "'");
    given[key] = values;
  }
  if (!config.empty()) {
    std::vector<std::string> known;
    for (const auto& [key, setter] : setters()) known.push_back(key);
    for (const char* k : {"output", "report", "activity-svg", "task-trace", "lp-bound", "lp-file",
                          "progress", "quiet"})
      known.push_back(k);
    for (const auto& [key, values] : read_run_config(config, known).settings)
      if (!output_only(key) && given.count(key) == 0) given[key] = values;
  }
  JobOptions o;
  for (const auto& [key, values] : given) setters().at(key)(o, values);
  if (o.trajectory.empty()) throw UsageError("no trajectory given");
  const double bin = given.count("bin") ? parse_number<double>("bin", given["bin"]) : 0;
  if (!(o.r_max >= 0) || !std::isfinite(o.r_max))
    throw UsageError("rmax must be positive (or 0: as large as the boxes allow)");
  if (!(o.r_min >= 0) || !std::isfinite(o.r_min)) throw UsageError("rmin must be at least 0");
  if (o.r_max > 0 && !(o.r_min < o.r_max)) throw UsageError("rmin must be below rmax");
  if (o.nbins < 0 || (given.count("nbins") && o.nbins == 0))
    throw UsageError("nbins must be positive");
  if (o.last < -1) throw UsageError("last must be -1 (to the end) or a frame index, 0 or more");
  if (const std::string rule = cpu_workers_problem(o.ncpu); !rule.empty())
    throw UsageError("ncpu " + rule);
  if (!(bin >= 0) || !std::isfinite(bin)) throw UsageError("bin must be positive");
  if (o.nbins > 0 && bin > 0) throw UsageError("give nbins or bin, not both");
  if (!o.sphere.empty() && o.exclude != "none")
    throw UsageError("sphere counts every pair inside the sphere: leave out exclude");
  if (o.whole_frames && o.algorithm == Algorithm::cell_list)
    throw UsageError(
        "schedule 'static' counts all pairs of whole frames: use algorithm auto or "
        "all-pairs with it");
  for (const auto& f : {o.trajectory, o.topology, o.index_file})
    if (!f.empty())
      if (const std::string problem = io::input_file_problem(f); !problem.empty())
        throw py::value_error(f + ": " + problem);
  if (output.empty() && (resume || overwrite))
    throw UsageError(std::string(resume ? "resume" : "overwrite") + " needs an output directory");
  // Ctrl-C asks the run to stop as SIGINT stops `pairhist run`: the frames begun are counted,
  // the rest dropped, and with an output directory the checkpoint and outputs written.
  std::atomic<int> stop{0};
  JobOutcome out;
  run_interruptibly(
      [&] {
        // As `pairhist run`: without rmax the largest the frames' boxes allow (a sphere's
        // diameter), without nbins bins of `bin` (0.002 nm) up to it.
        resolve_bins(o, bin);
        if (output.empty()) {
          o.hooks.stop = &stop;
          out = run_trajectory_job(o);
          return;
        }
        RunRequest request;
        request.job = o;
        request.controls.output = output;
        request.controls.resume = resume;
        request.controls.overwrite = overwrite;
        request.controls.quiet = true;
        out = run_writing_outputs(request, &stop);
      },
      [&] { stop.store(SIGINT); });
  if (resume && out.result.pairs.empty()) {
    // `output` held this run's finished results: nothing was counted again.
    const io::StoredRun stored = io::read_histogram_result(output);
    py::dict d = histogram_dict(stored.result);
    d["complete"] = stored.result.complete;
    d["stopped_by"] = stored.result.stopped_by;
    return d;
  }
  return result_dict(out);
}

/// A finished run's pairhist.h5 (or its output directory) as run() returns its result, its
/// interval blocks summed (io::read_histogram_result), with what only the file knows.
py::dict read_run(const std::string& path) {
  io::StoredRun stored;
  {
    py::gil_scoped_release release;
    stored = io::read_histogram_result(path);
  }
  py::dict d = histogram_dict(stored.result);
  d["path"] = stored.path;
  d["complete"] = stored.result.complete;
  d["stopped_by"] = stored.result.stopped_by;
  d["config"] = stored.config;
  d["notes"] = stored.notes;  // read_run() warns with them
  return d;
}

}  // namespace

void bind_run(py::module_& m) {
  m.def("run", &run, py::arg("settings"), py::arg("config"), py::arg("output") = "",
        py::arg("resume") = false, py::arg("overwrite") = false,
        "The `pairhist run` job (settings: long flag names and their values as text), writing "
        "into `output` (a directory) where given.");
  m.def("read_run", &read_run, py::arg("path"),
        "A finished run's pairhist.h5 (or its directory), keyed as run()'s result.");
  m.def(
      "_set_child_command",
      [](const std::vector<std::string>& command) { io::set_child_command(command); },
      "The command that serves the reading child processes (io/common/child_process.hpp).");
  m.def(
      "_serve_child_job",
      [](const std::vector<std::string>& argv) { return io::serve_child_job(argv); },
      "In such a child: the job its arguments ask for, to standard output; its exit status.");
}

}  // namespace pairhist::python
