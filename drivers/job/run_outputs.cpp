#include "drivers/job/run_outputs.hpp"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <filesystem>

#include "analysis/rdf.hpp"
#include "drivers/job/output_lock.hpp"
#include "io/results/hdf5_writer.hpp"
#include "io/results/histogram_result_reader.hpp"
#include "io/results/text_writers.hpp"
#include "pairhist/errors.hpp"

namespace pairhist {
namespace {

namespace fs = std::filesystem;

constexpr const char* kCheckpointName = "pairhist.ckpt";
// With the scattering outputs of `run --scattering` (and of `pairhist scattering` beside them),
// which --overwrite must not leave behind to contradict the new counts.
const std::vector<std::string> kResultNames = {
    "pairhist.h5",   "rdf.csv",      "rdf.xvg",  "cn.xvg", "intensity.csv",
    "intensity.xvg", "intensity.h5", "sq.csv",   "sq.xvg", "sq.h5",
    "excess.csv",    "excess.xvg",   "excess.h5"};

/// Temporaries of io::AtomicOutput (".NAME.tmp.PID") for our files whose process is gone: what a
/// run killed while writing leaves behind.
void remove_stale_temporaries(const fs::path& dir) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    for (const std::string& ours : kResultNames) {
      for (const std::string& target : {ours, std::string(kCheckpointName)}) {
        const std::string prefix = "." + target + ".tmp.";
        if (name.compare(0, prefix.size(), prefix) != 0) continue;
        const std::string pid_text = name.substr(prefix.size());
        if (pid_text.empty() || pid_text.find_first_not_of("0123456789") != std::string::npos)
          continue;
        const auto pid = static_cast<pid_t>(std::stol(pid_text));
        if (::kill(pid, 0) != 0 && errno == ESRCH) fs::remove(entry.path(), ec);
      }
    }
  }
}

}  // namespace

std::string checkpoint_path(const std::string& dir) {
  return (fs::path(dir) / kCheckpointName).string();
}

std::vector<std::string> run_directory_files(const std::string& dir) {
  std::vector<std::string> files;
  for (const std::string& name : kResultNames) files.push_back((fs::path(dir) / name).string());
  files.push_back(checkpoint_path(dir));
  files.push_back((fs::path(dir) / OutputLock::kFileName).string());
  return files;
}

void EarlierRun::record(const std::string& dir) {
  files_.clear();
  std::vector<std::string> names = kResultNames;
  names.push_back(kCheckpointName);
  for (const std::string& name : names) {
    const std::string path = (fs::path(dir) / name).string();
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0)  // through a link: the file the run would replace
      files_.push_back({path, static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino)});
  }
}

bool EarlierRun::holds(const std::string& path) const {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return false;
  for (const File& f : files_)
    if (f.path == path && f.device == static_cast<uint64_t>(st.st_dev) &&
        f.inode == static_cast<uint64_t>(st.st_ino))
      return true;
  return false;
}

void EarlierRun::retire() {
  std::error_code ec;
  for (const File& f : files_)
    if (holds(f.path)) fs::remove(f.path, ec);
  files_.clear();
}

void check_output_directory(const std::string& dir) {
  const fs::path p = fs::absolute(dir);
  const std::string hint =
      ": -o names the output directory, where rdf.csv, rdf.xvg, cn.xvg and pairhist.h5 are "
      "written (e.g. -o rdf-out)";
  if (fs::exists(p) && !fs::is_directory(p)) throw UsageError("-o " + dir + " is a file" + hint);
  // A name like a file's (rdf.xvg) is a mistake unless that directory already exists.
  std::string ext = fs::path(dir).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  static const char* const kFileExtensions[] = {".xvg", ".csv", ".h5",  ".hdf5", ".json",
                                                ".svg", ".dat", ".txt", ".png",  ".pdf"};
  if (!fs::exists(p))
    for (const char* e : kFileExtensions)
      if (ext == e) throw UsageError("-o " + dir + " looks like a file name" + hint);
  // The directory itself is created only when there is something to write, so a run that fails
  // early leaves nothing behind; but it must be possible to create it.
  fs::path existing = p;
  while (!fs::exists(existing)) existing = existing.parent_path();
  if (!fs::is_directory(existing) || access(existing.c_str(), W_OK | X_OK) != 0)
    throw UsageError("output directory " + dir + " cannot be written (" + existing.string() +
                     " is not writable)");
}

std::optional<Checkpoint> prepare_output_directory(const std::string& dir, bool resume,
                                                   bool overwrite, const RunIdentity& identity) {
  if (resume && overwrite) throw UsageError("--resume and --overwrite exclude each other");
  check_output_directory(dir);
  const fs::path p = fs::absolute(dir);
  if (!fs::exists(p)) return std::nullopt;
  remove_stale_temporaries(p);

  const std::string checkpoint = checkpoint_path(dir);
  const bool have_checkpoint = fs::exists(checkpoint);
  std::vector<std::string> results;
  for (const std::string& name : kResultNames)
    if (fs::exists(p / name)) results.push_back((fs::path(dir) / name).string());
  if (!have_checkpoint && results.empty()) return std::nullopt;

  if (overwrite) return std::nullopt;  // replaced once this run has results (EarlierRun)
  if (!resume) {
    bool finished = !have_checkpoint;
    try {
      if (have_checkpoint) finished = read_checkpoint(checkpoint).finished;
    } catch (const InputError&) {  // damaged: say what is there all the same
    }
    if (!finished)
      throw UsageError(dir + " holds an interrupted run (" + checkpoint +
                       "): add --resume to continue it, or --overwrite to start again");
    throw UsageError(dir + " holds the results of an earlier run (" +
                     (results.empty() ? checkpoint : results.front()) +
                     "): add --overwrite to replace them, or choose another -o");
  }
  if (!have_checkpoint)
    throw UsageError(dir +
                     " holds results without a checkpoint: nothing to resume (--overwrite runs "
                     "it again)");
  Checkpoint saved = read_checkpoint(checkpoint);
  if (const std::string diff = identity_difference(saved.identity, identity); !diff.empty())
    throw UsageError("cannot resume from " + checkpoint + ": " + diff);
  if (saved.finished && !fs::exists(p / "pairhist.h5"))
    throw UsageError(dir +
                     " records a finished run whose results are missing (--overwrite runs "
                     "it again)");
  if (saved.finished) {
    // "Nothing to resume" only where the results are this run's, whole and unchanged.
    const std::string results = (fs::path(dir) / "pairhist.h5").string();
    try {
      if (io::read_histogram_result(results).result.frame_indices != saved.state.frame_indices)
        throw InputError("cannot read '" + results + "': not the frames its checkpoint records");
    } catch (const InputError& e) {
      throw InputError(std::string(e.what()) + " (" + dir +
                       " records a finished run: --overwrite runs it again)");
    }
  }
  return saved;
}

std::vector<std::string> write_results(const std::string& dir, const HistogramResult& result,
                                       const std::string& config_text) {
  fs::create_directories(dir);
  const fs::path d(dir);
  std::vector<std::string> files = {(d / "pairhist.h5").string(), (d / "rdf.csv").string()};
  io::write_hdf5(files[0], result, config_text);
  io::write_rdf_csv(files[1], result);
  if (analysis::can_normalise(result)) {
    files.push_back((d / "rdf.xvg").string());
    io::write_xvg(files.back(), result);
    files.push_back((d / "cn.xvg").string());
    io::write_cn_xvg(files.back(), result);
  }
  return files;
}

}  // namespace pairhist
