// A parsed selection (analysis/selection.hpp) as a tree whose static parts are already atom masks
// and whose dynamic parts, `within R of SEL` and `around R SEL`, are evaluated per frame from its
// coordinates.
#pragma once

#include <memory>
#include <vector>

#include "pairhist/box_setup.hpp"

namespace pairhist::analysis {

using AtomMask = std::vector<char>;  // one entry per atom of the topology, 1: selected

struct SelectionNode {
  enum class Op { atoms, all_of, any_of, none_of, within, around };
  Op op = Op::atoms;
  AtomMask atoms;  // Op::atoms: the atoms, whatever the frame
  // all_of, any_of: two operands; none_of (`not`): one; within, around: the target.
  std::vector<std::unique_ptr<SelectionNode>> operands;
  double radius = 0;  // within, around: nm
};
using SelectionNodePtr = std::unique_ptr<SelectionNode>;

/// The nodes, folded into an atom mask where the operands are static.
SelectionNodePtr atoms_node(AtomMask atoms);
SelectionNodePtr and_node(SelectionNodePtr a, SelectionNodePtr b);
SelectionNodePtr or_node(SelectionNodePtr a, SelectionNodePtr b);
SelectionNodePtr not_node(SelectionNodePtr a);
/// `within radius of target` (target's atoms included) or, with `around`, MDAnalysis's
/// `around radius target` (target's atoms left out).
SelectionNodePtr distance_node(double radius, SelectionNodePtr target, bool around);

/// A selection that may change from frame to frame.
class Selection {
 public:
  Selection() = default;
  Selection(SelectionNodePtr root, int natoms);

  /// Whether the atoms depend on the frame (the selection uses `within` or `around`).
  bool dynamic() const { return root_ && root_->op != SelectionNode::Op::atoms; }
  /// The atoms it selects in some frame or other, ascending (a static selection's atoms): every
  /// atom the static parts allow, whatever the distances.
  const std::vector<int>& superset() const { return superset_; }
  /// superset(), moved out (it is empty afterwards): for a selection no longer needed.
  std::vector<int> take_superset();
  /// The atoms it selects in the frame of these coordinates (3 floats per atom, nm) and box
  /// (all zero: none), ascending, into `atoms`: always a part of superset(). Throws
  /// std::domain_error for an atom the distances need with a non-finite coordinate.
  void evaluate(const float* xyz, const BoxMatrix& box, std::vector<int>& atoms) const;

 private:
  SelectionNodePtr root_;
  int natoms_ = 0;
  std::vector<int> superset_;
};

}  // namespace pairhist::analysis
