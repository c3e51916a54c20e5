#include "io/trajectory/structure_frame_reader.hpp"

#include <utility>

#include "io/topology/topology_reader.hpp"
#include "pairhist/errors.hpp"

namespace pairhist::io {

StructureFrameReader::StructureFrameReader(const std::string& path) : path_(path) {
  Topology top = read_topology(path, TopologyContent::everything);
  if (top.natoms() == 0 || top.xyz.size() != 3 * static_cast<size_t>(top.natoms()))
    throw InputError(path + ": holds no coordinates to read as a frame");
  frame_.xyz = std::move(top.xyz);
  frame_.box = top.box;
}

bool StructureFrameReader::next(TrajectoryFrame& frame) {
  if (frames_read_ > 0) return false;
  frame = std::move(frame_);
  ++frames_read_;
  return true;
}

}  // namespace pairhist::io
