// Which reader a trajectory gets, and with how many decoding threads: the serial readers of
// io/trajectory/trajectory_reader.hpp, or an XtcParallelReader for XTC files big enough to gain
// from one, and where a resumed run's reading starts.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "io/xtc/xtc_parallel_reader.hpp"

namespace pairhist::io {

/// The decoding threads `pairhist run --decode-threads 0` (automatic) starts with for a trajectory
/// of `natoms` atoms on a host of `cores` hardware threads: 1 (the serial reader) below
/// kParallelDecodeMinAtoms atoms, otherwise min(4, cores / 4), at least 1 (a 47,000-atom frame
/// took 2.1 ms serially, 1.1 ms with 4 threads, on a 64-core GPU node). See docs/performance.md.
int automatic_decode_threads(int natoms, int cores);
constexpr int kParallelDecodeMinAtoms = 20000;
/// The most decoding threads an automatic reader can grow to (when the run turns out to be bound
/// by decoding): none beyond one below kParallelDecodeMinAtoms atoms (the serial reader), else one
/// per core but one (a GPU's driver thread), as many as keep decoded frames and their species
/// columns (~24 bytes per atom each) within `memory_bytes`; without it, within
/// decode_memory_bytes(). The feeding plan runs as many as keep the GPUs fed.
int automatic_max_decode_threads(int natoms, int cores, double memory_bytes);
int automatic_max_decode_threads(int natoms, int cores);
/// Memory the decoding threads may hold: kDecodeMemoryFraction of the node's, at least
/// kDecodeMemoryBytes (what it was before issue 24, whatever the node: 7 threads for 11M atoms on
/// a 512 GB node that needed 60).
double decode_memory_bytes();
constexpr double kDecodeMemoryBytes = 2.0 * (1 << 30);
constexpr double kDecodeMemoryFraction = 1.0 / 8;

/// Opens `path` as open_trajectory() does, except that an XTC file read with more than one decode
/// thread gets an XtcParallelReader. `decode_threads` 0 picks automatic_decode_threads() for the
/// file; 1 is the serial XtcReader. `prep` applies to an XtcParallelReader (the others deliver
/// whole frames, without columns). An XTC reader delivers only the frames `chooser` names
/// (TrajectoryReader::choose_frames) from the first frame on; other formats ignore it
/// (chooses_frames() tells).
std::unique_ptr<TrajectoryReader> open_trajectory_threaded(const std::string& path,
                                                           int decode_threads,
                                                           const FramePreparation& prep = {},
                                                           FrameChooser chooser = {});

/// open_trajectory_threaded, positioned after the first `skip` frames (a resumed run): an XTC
/// file's frames are passed over without decoding, other formats' are read and dropped.
/// frames_read() and the frame numbers of errors count them. Throws InputError naming the file
/// if it ends or fails within them.
std::unique_ptr<TrajectoryReader> open_trajectory_after(const std::string& path, int decode_threads,
                                                        int64_t skip,
                                                        const FramePreparation& prep = {});

}  // namespace pairhist::io
