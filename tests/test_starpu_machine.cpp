// The machine discovered for StarPU ahead of its start (tasks/starpu_machine.*): hwloc reads it
// back as this machine, and engines started from it count exactly.
#include <doctest/doctest.h>
#include <hwloc.h>

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

}  // namespace

TEST_CASE("StarPU starts from the machine discovered ahead and counts as before") {
  REQUIRE(std::getenv("STARPU_HWLOC_INPUT") == nullptr);
  prepare_engine_start(0, Precision::single);
  prepare_engine_start(0, Precision::single);  // idempotent
  const std::string file = starpu_machine_file();
  REQUIRE(file.rfind("/proc/self/fd/", 0) == 0);
  CHECK(units_and_cores(file) == units_and_cores(""));
  CHECK(starpu_machine_file() == file);  // the same file for every start

  const auto frames = test::make_frames({400, 90, 1}, 3, BoxKind::orthorhombic);
  EngineConfig config =
      test::engine_config(frames, BoxKind::orthorhombic, 60, 0.8, Precision::single);
  config.ncpu = 2;
  config.ncuda = 0;
  REQUIRE(test::run_engine(frames, config) == test::reference_histograms<float>(frames, config));
  // The engine's start set STARPU_HWLOC_INPUT for StarPU only.
  CHECK(std::getenv("STARPU_HWLOC_INPUT") == nullptr);
}
