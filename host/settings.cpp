// The user's settings from the environment, read once (include/pairhist/settings.hpp).
#include "pairhist/settings.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <string>

#include "pairhist/environment.hpp"

namespace pairhist {
namespace {

/// The variable's value, or null when it is unset or empty (an empty value means the default).
const char* value_of(const char* name) {
  const char* v = env_get(name);
  return v != nullptr && *v != '\0' ? v : nullptr;
}

std::string refused(const char* name, const char* value, const std::string& takes,
                    const std::string& used) {
  return std::string(name) + "=" + value + " ignored: it takes " + takes + "; using " + used;
}

/// A whole number in [lo, hi], the whole text of `text`.
bool whole_number(const char* text, long long lo, long long hi, long long& out) {
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || v < lo || v > hi) return false;
  out = v;
  return true;
}

Settings read_settings() {
  Settings s;
  if (const char* v = value_of("PAIRHIST_DATA_DIR")) s.data_dir = v;
  if (const char* v = value_of("PAIRHIST_GNUPLOT")) s.gnuplot = v;
  if (const char* v = value_of("PAIRHIST_HDF5_PROBE_SECONDS")) {
    long long seconds = 0;
    if (whole_number(v, 0, 999'999, seconds))
      s.hdf5_probe_seconds = static_cast<int>(seconds);
    else
      s.warnings.push_back(refused("PAIRHIST_HDF5_PROBE_SECONDS", v, "whole seconds, 0 to 999999",
                                   std::to_string(s.hdf5_probe_seconds)));
  }
  if (const char* v = value_of("PAIRHIST_PIN_BUDGET_MB")) {
    long long mib = 0;
    if (whole_number(v, 0, (1LL << 43) - 1, mib))
      s.pin_budget_bytes = static_cast<uint64_t>(mib) << 20;
    else
      s.warnings.push_back(
          refused("PAIRHIST_PIN_BUDGET_MB", v, "a whole number of MiB (0 and up)", "no limit"));
  }
  if (const char* v = value_of("PAIRHIST_MPI")) {
    const std::string launched = v;
    s.mpi_launched = launched == "0" ? 0 : 1;  // any other value, as before there was a check: 1
    if (launched != "0" && launched != "1")
      s.warnings.push_back(refused("PAIRHIST_MPI", v, "1 or 0", "1"));
  }
  if (const char* v = value_of("PAIRHIST_MPI_TIMEOUT")) {
    char* end = nullptr;
    const double seconds = std::strtod(v, &end);
    if (end != v && *end == '\0' && std::isfinite(seconds) && seconds > 0)
      s.mpi_timeout_seconds = seconds;
    else
      s.warnings.push_back(refused("PAIRHIST_MPI_TIMEOUT", v, "seconds above 0", "60"));
  }
  if (const char* v = value_of("PAIRHIST_CPU_KERNELS")) {
    const std::string kernels = v;
    if (kernels == "avx2" || kernels == "auto")
      s.force_avx2_kernels = kernels == "avx2";
    else
      s.warnings.push_back(refused("PAIRHIST_CPU_KERNELS", v, "auto or avx2", "auto"));
  }
  return s;
}

Settings read_and_warn() {
  Settings s = read_settings();
  for (const std::string& w : s.warnings)
    std::fprintf(stderr, "pairhist: warning: %s\n", w.c_str());
  return s;
}

std::mutex g_mutex;
std::optional<Settings> g_settings;  // read on the first call of settings()

}  // namespace

Settings Settings::from_environment() {
  return read_settings();
}

const Settings& settings() {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (!g_settings) g_settings = read_and_warn();
  return *g_settings;
}

void reload_settings() {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_settings = read_and_warn();
}

}  // namespace pairhist
