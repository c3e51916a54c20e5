// StarPU's settings from the environment, checked before StarPU reads them. StarPU aborts the
// process (exit 134) on a numeric variable that is no whole number (STARPU_NCPU=abc) or is
// negative, and when it cannot make its performance model directory ($HOME/.starpu/sampling
// under an unwritable or missing HOME, or an unwritable STARPU_HOME): an engine's start checks
// both first, so that the user gets one line naming the variable instead.
#pragma once

#include <string>
#include <vector>

namespace pairhist {

/// One line per numeric variable of StarPU 1.3 (those it reads with starpu_get_env_number and
/// starpu_get_env_float_default, the per-device STARPU_LIMIT_*_<n>_MEM among them) whose value
/// StarPU would abort on or misread, and per variable it reads otherwise and then aborts or
/// crashes on (the STARPU_WORKERS_*ID lists, a STARPU_MAIN_THREAD_CPUID beyond the machine's
/// CPUs, STARPU_NWORKER_PER_CUDA=0): naming the variable, its value and what it takes. Empty
/// when every one set is fine.
std::vector<std::string> starpu_variable_problems();

/// The directory StarPU keeps its performance models in, as StarPU 1.3 finds it:
/// $STARPU_PERF_MODEL_DIR, else $XDG_CACHE_HOME, $STARPU_HOME or $HOME (the first set), else
/// $TMPDIR, $TEMP, $TMP or /tmp, followed by /.starpu/sampling. `origin` names the variable it
/// came from ("HOME=/home/me"; "" for the /tmp fallback).
struct PerfmodelDir {
  std::string dir;
  std::string origin;
};
PerfmodelDir starpu_perfmodel_dir();

/// Why StarPU could not keep its models in `dir` ("" when it can): the directory and the
/// subdirectories StarPU makes in it (codelets/<version>, bus) created where missing and a file
/// written and removed in each, or a path longer than StarPU's 255 characters.
std::string perfmodel_dir_problem(const std::string& dir);

/// A private directory for the models when the usual one is unusable: <tmp>/pairhist-starpu-<uid>
/// (made 0700; one that exists must be this user's directory, not a link, writable by no one
/// else), else a fresh <tmp>/pairhist-starpu-XXXXXX. Empty, with `problem` set, when neither can
/// be made.
std::string fallback_perfmodel_dir(const std::string& tmp, std::string& problem);

/// Gives STARPU_PERF_MODEL_DIR the value StarPU would find without it, where it is unset, and
/// remembers where that came from: a later fallback then only replaces the value (adding a
/// variable while other threads read the environment can crash them, pairhist/environment.hpp).
/// Called by set_starpu_environment_defaults().
void reserve_perfmodel_dir_variable();

/// Before StarPU's start: where StarPU's model directory cannot be written, points
/// STARPU_PERF_MODEL_DIR at fallback_perfmodel_dir() and returns a warning naming the variable
/// the directory came from, the reason, and where the models go instead ("" when the directory
/// is fine). Throws UsageError when no writable place exists.
std::string ensure_perfmodel_dir();

}  // namespace pairhist
