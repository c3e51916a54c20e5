// Ctrl-C in a long call: Python runs its signal handlers (KeyboardInterrupt for SIGINT) only on
// its main thread, between bytecodes, so a call that waits in C++ for seconds would hear Ctrl-C
// only when it returns. A long call's work runs on a thread of its own instead, and the calling
// thread, the GIL released between looks, asks Python for pending signals several times a second.
#pragma once

#include <functional>

namespace pairhist::python {

/// Runs `work` on a thread of its own and waits for it, the GIL released, asking Python every
/// kSignalPollSeconds whether a signal handler raised (PyErr_CheckSignals: Ctrl-C gives
/// KeyboardInterrupt). At the first such exception `stop` is called, once, from this thread
/// (it asks `work` to end soon: a run's stop flag, an engine's drop_unstarted_frames); `work`
/// is waited for and the Python exception raised (py::error_already_set), whatever `work`
/// returned or threw meanwhile. Otherwise what `work` throws is thrown here. Call with the GIL
/// held; `work` must not touch Python objects. On a thread other than Python's main thread no
/// handler runs, and this is just a wait.
void run_interruptibly(const std::function<void()>& work, const std::function<void()>& stop);

constexpr double kSignalPollSeconds = 0.05;

}  // namespace pairhist::python
