// The process environment, read and changed while threads run. StarPU takes some settings only
// from the environment, so a run sets them as its engine starts, while decoding threads, CUDA's
// and MPI's already run. glibc's setenv moves the array of variables when it adds one, and a
// getenv walking the old array on another thread reads freed memory: F1 as 4 ranks on the 4x
// H200 node crashed in getenv on a decoding thread (3 runs in 23, commits e14d08e and 966d089).
// pairhist's own code reads and changes the environment through these functions, which share one
// lock (in libpairhist_host, so one per process); the settings a run always makes are made once,
// at the process's start, before any thread (set_starpu_environment_defaults, engine.hpp).
#pragma once

#include <string>
#include <vector>

namespace pairhist {

/// getenv under the environment's lock: the value, or null. glibc keeps every value string it
/// ever set, so the pointer stays valid after the lock; copy it where it must outlive a later
/// env_set of the same name on another C library.
const char* env_get(const char* name);
/// setenv / unsetenv under the lock (replace false: an existing value stays).
void env_set(const char* name, const char* value, bool replace = true);
void env_unset(const char* name);
/// A switch from the environment: `fallback` when `name` is unset, else whether its value is a
/// non-zero number (PAIRHIST_X=0 turns a default-on behaviour off, =1 a default-off one on).
bool env_flag(const char* name, bool fallback);
/// The names of the variables set, of those starting with `prefix`, under the lock.
std::vector<std::string> env_names(const std::string& prefix);

/// A variable set for a scope (StarPU reads its settings at starpu_init), its previous value (or
/// its absence) restored after.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value);
  ~ScopedEnv();
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

}  // namespace pairhist
