#include "drivers/cli/plot_command.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>

#include "drivers/report/gnuplot_script.hpp"
#include "io/common/atomic_file.hpp"
#include "io/common/output_paths.hpp"
#include "io/results/run_output_reader.hpp"
#include "io/scattering/q_table_reader.hpp"
#include "pairhist/environment.hpp"
#include "pairhist/errors.hpp"
#include "pairhist/settings.hpp"

namespace pairhist {

namespace {

namespace fs = std::filesystem;

std::string lower_extension(const std::string& path) {
  std::string ext = fs::path(path).extension().string();
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext;
}

/// The gnuplot executable to run: PAIRHIST_GNUPLOT (Settings::gnuplot), resolved on PATH. Empty
/// if there is none.
std::string find_gnuplot() {
  const std::string& program = settings().gnuplot;
  auto runnable = [](const std::string& p) {
    struct stat st {};
    return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0;
  };
  if (program.find('/') != std::string::npos) return runnable(program) ? program : "";
  const char* path = env_get("PATH");
  std::string dirs = path != nullptr ? path : "/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    const size_t end = std::min(dirs.find(':', start), dirs.size());
    const std::string dir = end > start ? dirs.substr(start, end - start) : ".";
    if (runnable(dir + "/" + program)) return dir + "/" + program;
    start = end + 1;
  }
  return "";
}

/// Keeps SIGPIPE from killing us if gnuplot exits before reading its whole script; the failed
/// write is then seen as an error and gnuplot's own message explains it.
class IgnoreSigpipe {
 public:
  IgnoreSigpipe() {
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    ::sigaction(SIGPIPE, &ignore, &previous_);
  }
  ~IgnoreSigpipe() { ::sigaction(SIGPIPE, &previous_, nullptr); }
  IgnoreSigpipe(const IgnoreSigpipe&) = delete;
  IgnoreSigpipe& operator=(const IgnoreSigpipe&) = delete;

 private:
  struct sigaction previous_ {};
};

/// The last non-blank line of gnuplot's stderr: its error message (the lines before it repeat the
/// offending command).
std::string last_line(const std::string& text) {
  std::string last, line;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == '\n') {
      const size_t b = line.find_first_not_of(" \t\r^");
      if (b != std::string::npos) last = line.substr(b);
      line.clear();
    } else {
      line += text[i];
    }
  }
  return last;
}

/// Runs `program` with `script` on its standard input; returns its exit status (-1 if it did not
/// exit normally) and stores its standard error in `err`.
int run_with_stdin(const std::string& program, const std::string& script, std::string& err) {
  // stderr goes to an unlinked temporary file: a pipe could fill up while we still write stdin.
  FILE* err_file = std::tmpfile();
  if (err_file == nullptr)
    throw OutputError(std::string("cannot create a temporary file: ") + std::strerror(errno));
  std::unique_ptr<FILE, int (*)(FILE*)> err_guard(err_file, std::fclose);
  int in[2];
  if (::pipe(in) != 0)
    throw OutputError(std::string("cannot create a pipe: ") + std::strerror(errno));
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(in[0]);
    ::close(in[1]);
    throw OutputError(std::string("cannot start gnuplot: ") + std::strerror(errno));
  }
  if (pid == 0) {
    const int null = ::open("/dev/null", O_WRONLY);
    ::dup2(in[0], STDIN_FILENO);
    if (null >= 0) ::dup2(null, STDOUT_FILENO);
    ::dup2(::fileno(err_file), STDERR_FILENO);
    ::close(in[0]);
    ::close(in[1]);
    ::execl(program.c_str(), program.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  ::close(in[0]);
  {
    IgnoreSigpipe guard;
    size_t done = 0;
    while (done < script.size()) {
      const ssize_t n = ::write(in[1], script.data() + done, script.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;  // gnuplot stopped reading: its exit status and message tell why
      done += static_cast<size_t>(n);
    }
    ::close(in[1]);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  std::rewind(err_file);
  char buf[4096];
  size_t got;
  while ((got = std::fread(buf, 1, sizeof buf, err_file)) > 0) err.append(buf, got);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/// Indices into run.pairs of the requested labels ("A-B" or "B-A"), in the requested order.
std::vector<size_t> select_pairs(const io::RunOutput& run, const std::vector<std::string>& wanted) {
  std::vector<size_t> chosen;
  if (wanted.empty()) {
    for (size_t i = 0; i < run.pairs.size(); ++i) chosen.push_back(i);
    return chosen;
  }
  auto matches = [](const std::string& label, const std::string& w) {
    if (label == w) return true;
    // Species names may contain '-': try every split of the label for the reversed order.
    for (size_t pos = label.find('-'); pos != std::string::npos; pos = label.find('-', pos + 1))
      if (label.substr(pos + 1) + "-" + label.substr(0, pos) == w) return true;
    return false;
  };
  for (const std::string& w : wanted) {
    size_t found = run.pairs.size();
    for (size_t i = 0; i < run.pairs.size() && found == run.pairs.size(); ++i)
      if (matches(run.pairs[i].label, w)) found = i;
    if (found == run.pairs.size()) {
      std::string have;
      for (const auto& p : run.pairs) have += (have.empty() ? "" : ", ") + p.label;
      throw UsageError("unknown pair '" + w + "' in --pairs: " + run.path + " has " + have);
    }
    if (std::find(chosen.begin(), chosen.end(), found) == chosen.end()) chosen.push_back(found);
  }
  return chosen;
}

/// The columns of a `pairhist scattering` table to draw: the total (I, S or dI) and its partials
/// (I_A-B, S_A-B, dI_A-B), or the total and the partials of the requested pairs.
std::vector<size_t> q_table_columns(const io::QTable& t, const std::string& path,
                                    const std::string& total,
                                    const std::vector<std::string>& wanted) {
  std::vector<size_t> chosen;
  std::vector<bool> found(wanted.size(), false);
  std::string have;
  for (size_t c = 0; c < t.columns.size(); ++c) {
    const std::string& name = t.columns[c].first;
    if (name == total) chosen.insert(chosen.begin(), c);
    if (name.rfind(total + "_", 0) != 0) continue;
    const std::string label = name.substr(total.size() + 1);
    have += (have.empty() ? "" : ", ") + label;
    bool take = wanted.empty();
    for (size_t w = 0; w < wanted.size(); ++w) {
      bool match = wanted[w] == label;
      // Species names may contain '-': try every split of the label for the reversed order.
      for (size_t pos = label.find('-'); pos != std::string::npos; pos = label.find('-', pos + 1))
        match = match || label.substr(pos + 1) + "-" + label.substr(0, pos) == wanted[w];
      if (match) found[w] = take = true;
    }
    if (take) chosen.push_back(c);
  }
  if (chosen.empty() || t.columns[chosen[0]].first != total)
    throw InputError("cannot plot '" + path + "': no column " + total);
  for (size_t w = 0; w < wanted.size(); ++w)
    if (!found[w])
      throw UsageError("unknown pair '" + wanted[w] + "' in --pairs: " + path + " has " + have);
  return chosen;
}

/// Runs gnuplot on `script` (which writes to `out`'s temporary file) and keeps the file.
void draw(io::AtomicOutput& out, const std::string& output, const std::string& script) {
  const std::string gnuplot = find_gnuplot();
  if (gnuplot.empty())
    throw OutputError("cannot plot to '" + output +
                      "': gnuplot not found (install gnuplot-nox: apt-get install gnuplot-nox)");
  std::string err;
  const int status = run_with_stdin(gnuplot, script, err);
  std::error_code ec;
  if (status != 0 || !fs::exists(out.temp_path(), ec) || fs::file_size(out.temp_path(), ec) == 0) {
    const std::string why = last_line(err);
    throw OutputError("cannot plot to '" + output + "': gnuplot " +
                      (status == 127 && why.empty()
                           ? std::string("could not be started")
                           : "failed (exit status " + std::to_string(status) + ")") +
                      (why.empty() ? "" : ": " + why));
  }
  out.commit();
}

}  // namespace

PlotResult plot_run(const PlotOptions& options) {
  if (options.width < 100 || options.height < 100 || options.width > 20000 ||
      options.height > 20000)
    throw UsageError("--size must be between 100 and 20000 pixels in each direction");
  std::error_code ec;
  const bool scattering =
      lower_extension(options.input) == ".csv" && io::is_q_table_csv(options.input);
  std::string output = options.output;
  if (output.empty()) {
    const fs::path in(options.input);
    output = scattering ? fs::path(in).replace_extension(".png").string()
                        : ((fs::is_directory(in, ec) ? in : in.parent_path()) / "rdf.png").string();
  }
  const std::string ext = lower_extension(output);
  if (ext != ".png" && ext != ".svg")
    throw UsageError("cannot plot to '" + output + "': the file name must end in .png or .svg");
  io::CommandFiles files;
  files.read(options.input, "the input " + options.input, {"pairhist.h5", "rdf.csv"});
  files.write(output, "the plot " + output);
  files.check(options.overwrite);

  PlotStyle style;
  style.terminal = ext == ".svg" ? "svg" : "pngcairo";
  style.width = options.width;
  style.height = options.height;
  style.title = options.title;
  style.coordination = options.coordination;
  PlotResult result;
  result.output = output;
  if (scattering) {
    if (options.coordination)
      throw UsageError("--coordination draws n(r) of a run: " + options.input + " is I(q) or S(q)");
    const io::QTable table = io::read_q_table_csv(options.input);
    // The kind of table by its first curve: an intensity (I), an excess (dI) or S(q) (S).
    std::string total = "S";
    for (const auto& c : table.columns)
      if (c.first == "I" || c.first == "dI") total = c.first;
    const std::vector<size_t> columns = q_table_columns(table, options.input, total, options.pairs);
    io::AtomicOutput out(output);
    style.output = out.temp_path();
    io::QTable titled = table;
    if (titled.title.empty())
      titled.title = (total == "S"    ? "Structure factor of "
                      : total == "dI" ? "Excess intensity of "
                                      : "Scattering intensity of ") +
                     fs::absolute(options.input, ec).parent_path().filename().string();
    titled.y_label = total + "(q)";
    draw(out, output, q_table_gnuplot_script(titled, options.input, columns, total, style));
    result.quantity = total + "(q)";
    for (size_t c : columns) result.pairs.push_back(table.columns[c].first);
    return result;
  }

  const io::RunOutput run = io::read_run_output(options.input);
  const std::vector<size_t> pairs = select_pairs(run, options.pairs);
  io::AtomicOutput out(output);
  style.output = out.temp_path();
  draw(out, output, gnuplot_script(run, pairs, style));
  result.counts_only = !run.has_rdf();
  result.quantity = result.counts_only ? "pair counts" : "g(r)";
  result.notes = run.notes;
  for (size_t i : pairs) result.pairs.push_back(run.pairs[i].label);
  return result;
}

void add_plot_command(CLI::App& app) {
  auto o = std::make_shared<PlotOptions>();
  auto size = std::make_shared<std::string>("900x600");
  CLI::App* cmd = app.add_subcommand(
      "plot",
      "Draw g(r) of a finished run (its output directory, pairhist.h5 or rdf.csv), or the "
      "I(q), S(q) or excess of `pairhist scattering` (intensity.csv, sq.csv, excess.csv), with "
      "their block-average errors as bands, with gnuplot as PNG or SVG");
  cmd->add_option("input", o->input,
                  "Run output directory, pairhist.h5, rdf.csv, intensity.csv, sq.csv or excess.csv")
      ->required();
  cmd->add_option("-o,--output", o->output,
                  "Plot file, .png or .svg (default: rdf.png in the run's directory; for a .csv "
                  "of scattering, its name with .png)");
  cmd->add_option("--pairs", o->pairs, "Pairs to draw, e.g. O-O,O-H (default: all)")
      ->delimiter(',');
  cmd->add_flag("--coordination", o->coordination,
                "Also draw the coordination number n(r) (dashed, right axis)");
  cmd->add_option("--title", o->title, "Plot title (default: made from the run)");
  cmd->add_option("--size", *size, "Width x height in pixels")->capture_default_str();
  cmd->add_flag("--overwrite", o->overwrite,
                "Replace an existing plot without keeping a backup #NAME.N# (default: kept, as "
                "GROMACS does)");
  cmd->callback([o, size]() {
    int w = 0, h = 0;
    char extra = 0;
    if (std::sscanf(size->c_str(), "%dx%d%c", &w, &h, &extra) != 2)
      throw UsageError("--size '" + *size + "': expected WIDTHxHEIGHT, e.g. 900x600");
    o->width = w;
    o->height = h;
    const PlotResult r = plot_run(*o);
    for (const std::string& note : r.notes)
      std::fprintf(stderr, "pairhist plot: note: %s\n", note.c_str());
    if (r.counts_only)
      std::fprintf(stderr,
                   "pairhist plot: note: the run has no g(r) (no periodic box and no --volume): "
                   "plotting pair counts per frame instead\n");
    std::string labels;
    for (const auto& p : r.pairs) labels += (labels.empty() ? "" : ", ") + p;
    std::printf("pairhist plot: wrote %s (%s of %s)\n", r.output.c_str(), r.quantity.c_str(),
                labels.c_str());
  });
}

}  // namespace pairhist
