// Damaged HDF5 files must end in an error, but the HDF5 library itself (1.10.8 in Debian 12) can
// crash or loop forever on some of them: a corrupt B-tree, local or global heap or object header
// (found by fuzzing, docs/reliability.md). Before our readers touch a file, a child process walks
// its whole structure with the library; if the child dies or hangs, the file is refused.
#pragma once

#include <functional>
#include <string>

namespace pairhist::io {

/// Walks the structure of the HDF5 file `path` in a child process: every object reachable from
/// the root group, its links, attributes (read in full), and for datasets their type, extent,
/// filters and chunk index. Throws InputError "path: ..." when the child crashed, failed or did
/// not finish within PAIRHIST_HDF5_PROBE_SECONDS (default 600; 0 skips the walk). Errors the
/// library reports cleanly are left to the reader. The file walked last (same path, size and
/// modification time) is not walked again.
///
/// `open_as_reader`, named `reader`, then runs in the child too: a reader's own calls, in its
/// order, meet what the library cached from its earlier ones, and a damaged file crashed
/// libhdf5 there after the walk had passed (H5Aexists after a variable-length string was read;
/// docs/reliability.md, finding 10). Inside it probe_hdf5_file returns at once and exceptions
/// are the reader's business. The file walked last is walked again for another `reader`.
void probe_hdf5_file(const std::string& path, const char* reader = "",
                     const std::function<void()>& open_as_reader = {});

}  // namespace pairhist::io
