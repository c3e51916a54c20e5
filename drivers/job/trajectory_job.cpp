#include "drivers/job/trajectory_job.hpp"

#include "drivers/job/trajectory_pipeline.hpp"
#include "pairhist/errors.hpp"

namespace pairhist {

SpeciesSpec parse_species(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw UsageError("--species expects NAME=SELECTION (e.g. O=OW or H=HW1,HW2), got '" + text +
                     "'");
  return {text.substr(0, eq), text.substr(eq + 1)};
}

JobOutcome run_trajectory_job(const JobOptions& options) {
  return TrajectoryPipeline(options).run();
}

}  // namespace pairhist
