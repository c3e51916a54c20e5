#include "io/trajectory/trajectory_topology.hpp"

#include <map>
#include <mutex>

namespace pairhist::io {
namespace {

std::mutex& pairs_mutex() {
  static std::mutex m;
  return m;
}
std::map<std::string, std::string>& pairs() {
  static std::map<std::string, std::string> p;
  return p;
}

}  // namespace

void state_trajectory_topology(const std::string& trajectory, const std::string& topology) {
  std::lock_guard<std::mutex> lock(pairs_mutex());
  pairs()[trajectory] = topology;
}

std::string trajectory_topology(const std::string& trajectory) {
  std::lock_guard<std::mutex> lock(pairs_mutex());
  const auto it = pairs().find(trajectory);
  return it == pairs().end() ? "" : it->second;
}

}  // namespace pairhist::io
