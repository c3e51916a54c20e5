#include "python/src/interruptible.hpp"

#include <pybind11/pybind11.h>

#include <chrono>
#include <exception>
#include <future>
#include <optional>

namespace pairhist::python {

namespace py = pybind11;

void run_interruptibly(const std::function<void()>& work, const std::function<void()>& stop) {
  std::future<void> done = std::async(std::launch::async, work);
  const auto poll = std::chrono::duration<double>(kSignalPollSeconds);
  std::optional<py::error_already_set> interrupted;
  for (;;) {
    bool finished = false;
    {
      py::gil_scoped_release release;
      finished = done.wait_for(poll) == std::future_status::ready;
    }
    if (finished) break;
    if (!interrupted && PyErr_CheckSignals() != 0) {
      interrupted.emplace();  // takes the exception the handler raised (KeyboardInterrupt)
      stop();
    }
  }
  if (interrupted) {
    try {
      done.get();
    } catch (...) {
      // What the stopped work ended with (a stop reported as an exception, or a failure on the
      // way out) gives way to the interruption the user asked for.
    }
    throw std::move(*interrupted);
  }
  done.get();
}

}  // namespace pairhist::python
