// The smallest topology the selection and position tests share.
#pragma once

#include "analysis/topology.hpp"

namespace pairhist::test {

/// Two waters and two ions: atoms 1..8 in .gro numbering (no masses, no molecules).
inline analysis::Topology small_topology() {
  analysis::Topology t;
  t.atom_names = {"OW", "HW1", "HW2", "OW", "HW1", "HW2", "NA", "CL"};
  t.residue_names = {"SOL", "SOL", "SOL", "SOL", "SOL", "SOL", "NA", "CL"};
  t.residue_numbers = {1, 1, 1, 2, 2, 2, 3, 4};
  return t;
}

}  // namespace pairhist::test
