// StarPU's stored performance models, checked before starpu_init. StarPU 1.3 rewrites a model
// file in place when it shuts down; a run killed in that moment (SIGKILL, a node lost) leaves a
// truncated file, and every later run would then abort inside StarPU's parser
// (perfmodel_history.c: "Incorrect performance model file"). A damaged file is moved aside so that
// the run recalibrates instead.
#pragma once

#include <string>
#include <vector>

namespace pairhist::codelets {

/// Loads each file of the codelet model directory (STARPU_PERF_MODEL_DIR or
/// $STARPU_HOME/.starpu/sampling/codelets/<version>/) in a child process; a file that its parser
/// rejects is renamed to NAME.damaged. Returns one line per file moved. Call before starpu_init;
/// only the first call in a process checks.
std::vector<std::string> set_aside_damaged_perfmodels();

/// Where StarPU keeps its measurements of this machine's buses (host <-> GPU bandwidth and
/// latency), and whether they are there: without them, starpu_init measures them first, which
/// takes seconds with GPUs (once per machine and GPU count).
struct BusModel {
  std::string dir;
  bool stored = false;
};
BusModel stored_bus_model();

}  // namespace pairhist::codelets
