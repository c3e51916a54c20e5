// StarPU discovers the machine with hwloc at every start, every I/O device included: 60-70 ms of
// the 0.04-0.09 s an engine's start took on the H100 host, on the path of every run before its
// first task. The same discovery can run earlier, beside the caller's reading of its inputs;
// StarPU then reads it as XML (STARPU_HWLOC_INPUT) in ~3 ms. Nothing else changes: the XML is
// this machine's, marked as this system, so StarPU binds its workers as before.
#pragma once

#include <string>

namespace pairhist {

/// Starts discovering the machine as StarPU's start would, on a thread of its own. Idempotent,
/// thread-safe; does nothing when the user set STARPU_HWLOC_INPUT.
void discover_machine_for_starpu();

/// The file StarPU can read that discovery from, once it is done (waits for it); empty when none
/// was started or it failed: StarPU then discovers the machine itself.
std::string starpu_machine_file();

}  // namespace pairhist
