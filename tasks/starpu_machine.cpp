#include "tasks/starpu_machine.hpp"

#include <hwloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <future>
#include <mutex>

#include "pairhist/environment.hpp"

namespace pairhist {
namespace {

/// The machine as XML in a memory file that lives as long as the process (StarPU may start again,
/// e.g. without a GPU too small for its tasks); its path, or empty.
std::string discover() {
  hwloc_topology_t topology;
  if (hwloc_topology_init(&topology) != 0) return {};
    // StarPU's own filter (_starpu_topology_filter in StarPU 1.3 and 1.4).
#if HWLOC_API_VERSION >= 0x20000
  hwloc_topology_set_io_types_filter(topology, HWLOC_TYPE_FILTER_KEEP_ALL);
  hwloc_topology_set_flags(topology, HWLOC_TOPOLOGY_FLAG_IS_THISSYSTEM);
#else
  hwloc_topology_set_flags(topology,
                           HWLOC_TOPOLOGY_FLAG_IS_THISSYSTEM | HWLOC_TOPOLOGY_FLAG_WHOLE_IO);
#endif
  std::string path;
  char* xml = nullptr;
  int length = 0;
  if (hwloc_topology_load(topology) == 0 &&
      hwloc_topology_export_xmlbuffer(topology, &xml, &length, 0) == 0) {
    const int fd = memfd_create("pairhist-machine", MFD_CLOEXEC);
    ssize_t written = 0;
    if (fd >= 0) {
      const auto bytes = static_cast<ssize_t>(length > 0 ? length - 1 : 0);  // without the NUL
      while (written < bytes) {
        const ssize_t w = write(fd, xml + written, static_cast<size_t>(bytes - written));
        if (w <= 0) break;
        written += w;
      }
      // StarPU opens it by name: without /proc it could not, and would say so on stderr.
      const std::string name = "/proc/self/fd/" + std::to_string(fd);
      if (written == bytes && bytes > 0 && access(name.c_str(), R_OK) == 0)
        path = name;
      else
        close(fd);
    }
    hwloc_free_xmlbuffer(topology, xml);
  }
  hwloc_topology_destroy(topology);
  return path;
}

struct Discovery {
  std::mutex mutex;
  bool started = false;
  std::shared_future<std::string> file;
};

Discovery& discovery() {
  static Discovery d;
  return d;
}

}  // namespace

void discover_machine_for_starpu() {
  Discovery& d = discovery();
  std::lock_guard<std::mutex> lock(d.mutex);
  if (d.started) return;
  d.started = true;
  if (const char* own = env_get("STARPU_HWLOC_INPUT"); own && *own) return;
  d.file = std::async(std::launch::async, discover).share();
}

std::string starpu_machine_file() {
  Discovery& d = discovery();
  std::shared_future<std::string> file;
  {
    std::lock_guard<std::mutex> lock(d.mutex);
    file = d.file;
  }
  return file.valid() ? file.get() : std::string();
}

}  // namespace pairhist
