// What `pairhist run` tells its user: the summary of a run, and for a run stopped by a signal
// how far it got and the exact command that resumes it.
#pragma once

#include <string>
#include <vector>

#include "drivers/job/trajectory_job.hpp"

namespace pairhist {

/// The run summary on stdout: what was computed and where it went, the frames, species, bins
/// and time; with `verbose` also the pairs examined, the throughput and the scheduler's detail
/// (algorithm, workers, tasks, makespan, each worker), which --report always holds.
void print_run_summary(const JobOptions& job, const JobOutcome& out,
                       const std::vector<std::string>& files, bool verbose);

/// On stderr: the signal, the frames counted and dropped, where the outputs and checkpoint are,
/// and the command that resumes the run.
void print_stop_report(const JobOutcome& out, const std::string& output,
                       const std::string& checkpoint);

/// The program's arguments, for the command that resumes a stopped run.
void remember_command_line(int argc, char** argv);

}  // namespace pairhist
