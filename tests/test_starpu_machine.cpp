// The machine discovered for StarPU ahead of its start (tasks/starpu_machine.*): hwloc reads it
// back as this machine, and engines started from it count exactly.
#include <doctest/doctest.h>
#include <hwloc.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "tasks/starpu_machine.hpp"
#include "tests/engine_reference.hpp"

using namespace pairhist;

namespace {

/// Processing units and cores hwloc finds, on this machine (empty `xml`) or in an XML file.
std::pair<int, int> units_and_cores(const std::string& xml) {
  hwloc_topology_t topology;
  hwloc_topology_init(&topology);
  if (!xml.empty()) REQUIRE(hwloc_topology_set_xml(topology, xml.c_str()) == 0);
  REQUIRE(hwloc_topology_load(topology) == 0);
  const std::pair<int, int> n{hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_PU),
                              hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_CORE)};
  hwloc_topology_destroy(topology);
  return n;
}

/// An engine on `ncpu` cores counts `frames` random frames of `atoms` atoms exactly.
void count_on_cores(int atoms, int frames, int bins, int ncpu) {
  const auto made = test::make_frames({atoms, atoms / 5 + 10, 1}, frames, BoxKind::orthorhombic);
  EngineConfig config =
      test::engine_config(made, BoxKind::orthorhombic, bins, 0.8, Precision::single);
  config.ncpu = ncpu;
  config.ncuda = 0;
  REQUIRE(test::run_engine(made, config) == test::reference_histograms<float>(made, config));
}

}  // namespace

TEST_CASE("StarPU starts from the machine discovered ahead and counts as before") {
  const char* own = std::getenv("STARPU_HWLOC_INPUT");  // none, or set_starpu_environment_defaults'
  REQUIRE((own == nullptr || *own == '\0'));
  prepare_engine_start(0, Precision::single);
  prepare_engine_start(0, Precision::single);  // idempotent
  const std::string file = starpu_machine_file();
  REQUIRE(file.rfind("/proc/self/fd/", 0) == 0);
  CHECK(units_and_cores(file) == units_and_cores(""));
  CHECK(starpu_machine_file() == file);  // the same file for every start

  count_on_cores(400, 3, 60, 2);
  // The engine's start set STARPU_HWLOC_INPUT for StarPU only, by replacing the empty value
  // set_starpu_environment_defaults gave it, never by adding the name (which would move the
  // environment under threads reading it): the name stays, empty again.
  const char* after = std::getenv("STARPU_HWLOC_INPUT");
  REQUIRE(after != nullptr);
  CHECK(std::string(after).empty());
}

TEST_CASE("After the defaults, an engine's start adds no name to the environment") {
  set_starpu_environment_defaults();
  const auto names = [] {
    size_t n = 0;
    for (char** e = environ; *e != nullptr; ++e) ++n;
    return n;
  };
  const size_t before = names();
  for (const char* name : {"STARPU_HWLOC_INPUT", "STARPU_CUDA_PIPELINE", "STARPU_NWORKER_PER_CUDA"})
    CHECK(std::getenv(name) != nullptr);
  count_on_cores(300, 2, 40, 1);
  CHECK(names() == before);
}
