// The process environment under one lock (include/pairhist/environment.hpp).
#include "pairhist/environment.hpp"

#include <unistd.h>

#include <cstdlib>
#include <mutex>
#include <shared_mutex>
#include <string>

namespace pairhist {
namespace {

std::shared_mutex& environment_mutex() {
  static std::shared_mutex m;
  return m;
}

}  // namespace

const char* env_get(const char* name) {
  std::shared_lock<std::shared_mutex> lock(environment_mutex());
  return std::getenv(name);
}

void env_set(const char* name, const char* value, bool replace) {
  std::unique_lock<std::shared_mutex> lock(environment_mutex());
  setenv(name, value, replace ? 1 : 0);
}

bool env_flag(const char* name, bool fallback) {
  const char* v = env_get(name);
  return v ? std::atoi(v) != 0 : fallback;
}

std::vector<std::string> env_names(const std::string& prefix) {
  std::shared_lock<std::shared_mutex> lock(environment_mutex());
  std::vector<std::string> names;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string text = *entry;
    if (text.rfind(prefix, 0) == 0) names.push_back(text.substr(0, text.find('=')));
  }
  return names;
}

void env_unset(const char* name) {
  std::unique_lock<std::shared_mutex> lock(environment_mutex());
  unsetenv(name);
}

ScopedEnv::ScopedEnv(const char* name, const char* value) : name_(name) {
  if (const char* old = env_get(name)) old_ = old, had_ = true;
  env_set(name, value);
}

ScopedEnv::~ScopedEnv() {
  if (had_)
    env_set(name_, old_.c_str());
  else
    env_unset(name_);
}

}  // namespace pairhist
