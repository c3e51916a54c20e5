// The W1 workloads: a real liquid (a bundled GROMACS sample) replicated n x n x n along its lattice
// vectors. Shared by `pairhist synth` (which writes the result as XTC + GRO) and `pairhist bench`
// (which feeds it to the kernels from memory), so both measure exactly the same atoms.
//
// Replication: image (i, j, k), 0 <= i, j, k < n, is the sample with every atom moved by
// i a + j b + k c (a, b, c the frame's box vectors), and the replicated frame's box is n a, n b,
// n c. Because the sample is periodic in its own box, the result is the same liquid, periodic in
// the larger box, with every pair structure below half the sample's box unchanged. Images are
// numbered r = i + n (j + n k) (a fastest), and the atom order is replica-major: all sample atoms
// of image 0 in file order, then those of image 1, ..., so molecules stay contiguous.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "io/topology/gro_reader.hpp"
#include "io/trajectory/trajectory_reader.hpp"

namespace pairhist {

/// "W1" (SPC/E water, orthorhombic) or "W1-T" (NaCl solution, rhombic dodecahedron).
bool is_liquid_case(const std::string& name);

/// Atoms the liquid cases aim at when no size is given (the middle W1 size).
constexpr int64_t kLiquidDefaultAtoms = 1400000;

struct LiquidSampleFiles {
  std::string xtc, gro;
};

/// Where the sample of a liquid case is read from. An explicit `xtc` wins (`gro` defaults to it
/// with the extension .gro); otherwise the case's bundled files (spce_water.* for W1,
/// nacl_dodecahedron.* for W1-T) in the data directory: $PAIRHIST_DATA_DIR when set, else
/// ../../data next to the executable (build/drivers/pairhist in a build tree), else the source
/// tree's data/ recorded at compile time. Throws UsageError (one line, naming the places tried)
/// when nothing is found.
LiquidSampleFiles find_liquid_sample(const std::string& case_name,
                                     const LiquidSampleFiles& given = {});

/// The sample in memory: its topology and every frame (a few MB for the bundled samples).
struct LiquidSample {
  std::string case_name;
  LiquidSampleFiles files;
  analysis::Topology topology;
  std::vector<io::TrajectoryFrame> frames;
  int natoms() const { return topology.natoms(); }
  /// The sample frame behind output frame t: output frames cycle through the sample's.
  const io::TrajectoryFrame& frame(int t) const {
    return frames[static_cast<size_t>(t) % frames.size()];
  }
};

/// Reads the sample with the project's readers. Throws InputError for unreadable files, a
/// topology whose atom count differs from the trajectory's, no frames, or a frame without a box.
LiquidSample load_liquid_sample(const std::string& case_name, const LiquidSampleFiles& files);

/// n = max(1, round(cbrt(atoms / sample_atoms))): the replica count whose system is nearest to
/// `atoms` on a logarithmic scale of n.
int replicas_for_atoms(int64_t atoms, int sample_atoms);

/// Atoms of the replicated system; throws UsageError when it (times three coordinates) does not
/// fit in the int the XTC format and the C API count with.
int replicated_atoms(const LiquidSample& sample, int replicas);

/// The box n a, n b, n c.
std::array<float, 9> replicated_box(const std::array<float, 9>& box, int replicas);

/// Replicates the coordinates of the sample atoms `atoms` (indices, in this order; all atoms when
/// null) of one frame: out = replicas^3 * count * 3 floats, replica-major. Sums are taken in
/// double and rounded once, so image (i, j, k) of an atom is the float nearest x + i a + j b + k c.
void replicate_coordinates(const io::TrajectoryFrame& frame, int replicas,
                           const std::vector<int>* atoms, std::vector<float>& out);

/// Output frame t of the replicated trajectory: coordinates and box of sample frame t mod m
/// replicated; step and time continue the sample's spacing (frame 1 minus frame 0), so frames
/// beyond the sample's count keep increasing and the first m equal the sample's.
void replicated_frame(const LiquidSample& sample, int replicas, int t, io::TrajectoryFrame& out);

/// A species of the liquid cases: O = atoms named OW, H = atoms named HW1 or HW2.
struct LiquidSpecies {
  std::string name;
  std::vector<std::string> atom_names;
  std::vector<int> atoms;  // sample atom indices, file order
};

/// O and H of the sample. Throws InputError when either is empty (a sample without water names).
std::vector<LiquidSpecies> liquid_species(const analysis::Topology& topology);

}  // namespace pairhist
