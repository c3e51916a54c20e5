// Whether a path given as an input (a trajectory, topology, index, config, q file, table) can be
// read as a file, and if not, what it is: a directory, a FIFO or a device is named as such, and
// a file that cannot be opened gets the system's reason, rather than "no such file" for all of
// them. Every command's up-front check and every reader's open use these.
#pragma once

#include <string>

namespace pairhist::io {

/// "" when `path` is a regular file this process can open for reading; else the problem, without
/// the path: "no such file", "is a directory", "is a FIFO (named pipe), not a regular file", "is a
/// character device, not a regular file", or the reason opening it failed ("Permission
/// denied").
std::string input_file_problem(const std::string& path);

/// Throws InputError "PATH: problem" unless input_file_problem(path) is "".
void require_input_file(const std::string& path);

/// "" when an output file named `path` (given with `flag`) could be written where it points: not
/// a directory, in a writable directory that exists (or is `made_dir`, which the command makes
/// before it writes there); else the problem as one line naming the flag, e.g. "--report out/
/// is a directory: --report names a file (e.g. report.json)". Checked before any work, so that
/// a run does not count for minutes and then fail to write.
std::string output_file_problem(const std::string& flag, const std::string& path,
                                const std::string& example, const std::string& made_dir = "");

}  // namespace pairhist::io
