#include "drivers/cli/option_rules.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>

#include "pairhist/errors.hpp"
#include "pairhist/host_cores.hpp"

namespace pairhist {
namespace {

/// The whole text as a whole number.
bool whole_number(const std::string& text, long long& value) {
  errno = 0;
  char* end = nullptr;
  value = std::strtoll(text.c_str(), &end, 10);
  return errno == 0 && end != text.c_str() && *end == '\0';
}

std::string got(const std::string& text, const std::string& rule) {
  return "got '" + excerpt(text) + "'; it takes " + rule;
}

CLI::Validator rule(std::function<std::string(const std::string&)> check, std::string name) {
  return CLI::Validator([check](std::string& text) { return check(text); }, "", std::move(name));
}

/// A size in bytes as a person reads it (16 GB, 800 MB).
std::string bytes_text(double bytes) {
  const char* units[] = {"bytes", "kB", "MB", "GB", "TB", "PB"};
  int u = 0;
  while (bytes >= 1000 && u < 5) bytes /= 1000, ++u;
  char text[32];
  std::snprintf(text, sizeof text, "%.3g %s", bytes, units[u]);
  return text;
}

}  // namespace

std::string bins_limit_problem(double bins) {
  if (bins <= static_cast<double>(kMaxBins)) return "";
  char count[32];
  std::snprintf(count, sizeof count, "%.0f", std::floor(bins));
  return "over the limit of " + std::to_string(kMaxBins) + " bins (a histogram of " + count +
         " bins would take " + bytes_text(std::floor(bins) * 8) +
         ", and a run keeps one per pair and worker)";
}

std::string cpu_workers_problem(long long ncpu) {
  const int cores = usable_cores();
  if (ncpu >= -1 && ncpu <= cores) return "";
  return "must be -1 (planned) or 0 to " + std::to_string(cores) +
         " CPU workers (the cores this process may use), got " + std::to_string(ncpu);
}

namespace option_rule {

CLI::Validator finite() {
  return rule(
      [](const std::string& value) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(value.c_str(), &end);
        return end != value.c_str() && *end == '\0' && std::isfinite(v)
                   ? ""
                   : got(value, "a number (not nan or inf)");
      },
      "finite");
}

CLI::Validator bins() {
  return rule(
      [](const std::string& value) -> std::string {
        long long v = 0;
        if (!whole_number(value, v) || v < 1)
          return got(value, "a whole number of bins from 1 to " + std::to_string(kMaxBins));
        return v > kMaxBins ? excerpt(value) + " is " + bins_limit_problem(static_cast<double>(v))
                            : "";
      },
      "bins");
}

}  // namespace option_rule

void refuse_repeated_options(CLI::App& app) {
  for (CLI::Option* opt : app.get_options()) {
    // Options that collect values (--species, --pairs) take any number of them.
    if (opt->get_items_expected_max() > 1) continue;
    opt->multi_option_policy(CLI::MultiOptionPolicy::Throw);
  }
  for (CLI::App* sub : app.get_subcommands({})) refuse_repeated_options(*sub);
}

std::string parse_error_text(const CLI::Error& e) {
  const std::string what = e.what();
  const std::string marker = ": At Most 1 required but received ";
  const size_t at = what.find(marker);
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&e) == nullptr || at == std::string::npos)
    return what;
  return what.substr(0, at) + " was given " + what.substr(at + marker.size()) +
         " times: give it once";
}

}  // namespace pairhist
