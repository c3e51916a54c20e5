#include "analysis/selection_tree.hpp"

#include <algorithm>
#include <stdexcept>

#include "analysis/selection_within.hpp"

namespace pairhist::analysis {
namespace {

using Op = SelectionNode::Op;

bool is_static(const SelectionNode& n) {
  return n.op == Op::atoms;
}

SelectionNodePtr node(Op op, std::vector<SelectionNodePtr> operands, double radius = 0) {
  auto n = std::make_unique<SelectionNode>();
  n->op = op;
  n->operands = std::move(operands);
  n->radius = radius;
  return n;
}

/// Masks of the atoms a node selects in no frame less (`lower`) and in no frame more (`upper`).
/// A distance test may pick any of its candidates or none; `not` swaps the bounds.
void bounds(const SelectionNode& n, size_t natoms, AtomMask& lower, AtomMask& upper) {
  switch (n.op) {
    case Op::atoms:
      lower = upper = n.atoms;
      return;
    case Op::none_of: {
      AtomMask l, u;
      bounds(*n.operands[0], natoms, l, u);
      lower.assign(natoms, 0), upper.assign(natoms, 0);
      for (size_t i = 0; i < natoms; ++i) lower[i] = !u[i], upper[i] = !l[i];
      return;
    }
    case Op::all_of:
    case Op::any_of: {
      AtomMask la, ua, lb, ub;
      bounds(*n.operands[0], natoms, la, ua);
      bounds(*n.operands[1], natoms, lb, ub);
      const bool all = n.op == Op::all_of;
      lower.assign(natoms, 0), upper.assign(natoms, 0);
      for (size_t i = 0; i < natoms; ++i) {
        lower[i] = all ? la[i] && lb[i] : la[i] || lb[i];
        upper[i] = all ? ua[i] && ub[i] : ua[i] || ub[i];
      }
      return;
    }
    case Op::within:
    case Op::around:
      lower.assign(natoms, 0);
      upper.assign(natoms, 1);
      return;
  }
}

/// The node's atoms in this frame, where `wanted` is set (elsewhere 0): the distance tests then
/// look at the wanted atoms only.
AtomMask evaluate_node(const SelectionNode& n, const float* xyz, const BoxMatrix& box,
                       const AtomMask& wanted) {
  const size_t natoms = wanted.size();
  AtomMask m(natoms, 0);
  switch (n.op) {
    case Op::atoms:
      for (size_t i = 0; i < natoms; ++i) m[i] = wanted[i] && n.atoms[i];
      return m;
    case Op::none_of: {
      const AtomMask a = evaluate_node(*n.operands[0], xyz, box, wanted);
      for (size_t i = 0; i < natoms; ++i) m[i] = wanted[i] && !a[i];
      return m;
    }
    case Op::all_of: {
      // The second operand only where the first holds: `name OW and within ...` tests the OW.
      const AtomMask a = evaluate_node(*n.operands[0], xyz, box, wanted);
      return evaluate_node(*n.operands[1], xyz, box, a);
    }
    case Op::any_of: {
      const AtomMask a = evaluate_node(*n.operands[0], xyz, box, wanted);
      AtomMask rest(natoms, 0);
      for (size_t i = 0; i < natoms; ++i) rest[i] = wanted[i] && !a[i];
      const AtomMask b = evaluate_node(*n.operands[1], xyz, box, rest);
      for (size_t i = 0; i < natoms; ++i) m[i] = a[i] || b[i];
      return m;
    }
    case Op::within:
    case Op::around: {
      const AtomMask all(natoms, 1);
      const AtomMask target = evaluate_node(*n.operands[0], xyz, box, all);
      std::vector<int> targets, candidates;
      for (size_t i = 0; i < natoms; ++i) {
        if (target[i]) targets.push_back(static_cast<int>(i));
        if (wanted[i] && !(n.op == Op::around && target[i]))
          candidates.push_back(static_cast<int>(i));
      }
      mark_within(xyz, box, targets, candidates, n.radius, m);
      return m;
    }
  }
  throw std::logic_error("selection node of no known kind");
}

}  // namespace

SelectionNodePtr atoms_node(AtomMask atoms) {
  auto n = std::make_unique<SelectionNode>();
  n->atoms = std::move(atoms);
  return n;
}

SelectionNodePtr and_node(SelectionNodePtr a, SelectionNodePtr b) {
  if (is_static(*a) && is_static(*b)) {
    for (size_t i = 0; i < a->atoms.size(); ++i) a->atoms[i] = a->atoms[i] && b->atoms[i];
    return a;
  }
  // A static operand first: it narrows the atoms the dynamic one tests.
  if (is_static(*b)) std::swap(a, b);
  std::vector<SelectionNodePtr> operands;
  operands.push_back(std::move(a));
  operands.push_back(std::move(b));
  return node(Op::all_of, std::move(operands));
}

SelectionNodePtr or_node(SelectionNodePtr a, SelectionNodePtr b) {
  if (is_static(*a) && is_static(*b)) {
    for (size_t i = 0; i < a->atoms.size(); ++i) a->atoms[i] = a->atoms[i] || b->atoms[i];
    return a;
  }
  if (is_static(*b)) std::swap(a, b);
  std::vector<SelectionNodePtr> operands;
  operands.push_back(std::move(a));
  operands.push_back(std::move(b));
  return node(Op::any_of, std::move(operands));
}

SelectionNodePtr not_node(SelectionNodePtr a) {
  if (is_static(*a)) {
    for (auto& v : a->atoms) v = !v;
    return a;
  }
  std::vector<SelectionNodePtr> operands;
  operands.push_back(std::move(a));
  return node(Op::none_of, std::move(operands));
}

SelectionNodePtr distance_node(double radius, SelectionNodePtr target, bool around) {
  std::vector<SelectionNodePtr> operands;
  operands.push_back(std::move(target));
  return node(around ? Op::around : Op::within, std::move(operands), radius);
}

Selection::Selection(SelectionNodePtr root, int natoms) : root_(std::move(root)), natoms_(natoms) {
  // A static selection's mask is its superset: no bounds to combine (at 11M atoms the copies
  // and an unreserved fill took 35-100 ms a species, on the path to a run's first frame).
  AtomMask lower, upper;
  const AtomMask* mask = &root_->atoms;
  if (dynamic()) {
    bounds(*root_, static_cast<size_t>(natoms), lower, upper);
    mask = &upper;
  }
  superset_.reserve(static_cast<size_t>(std::count(mask->begin(), mask->end(), 1)));
  for (size_t i = 0; i < mask->size(); ++i)
    if ((*mask)[i]) superset_.push_back(static_cast<int>(i));
}

std::vector<int> Selection::take_superset() {
  std::vector<int> atoms = std::move(superset_);
  superset_.clear();
  return atoms;
}

void Selection::evaluate(const float* xyz, const BoxMatrix& box, std::vector<int>& atoms) const {
  atoms.clear();
  if (!dynamic()) {
    atoms = superset_;
    return;
  }
  AtomMask wanted(static_cast<size_t>(natoms_), 0);
  for (int a : superset_) wanted[static_cast<size_t>(a)] = 1;
  const AtomMask m = evaluate_node(*root_, xyz, box, wanted);
  for (int a : superset_)
    if (m[static_cast<size_t>(a)]) atoms.push_back(a);
}

}  // namespace pairhist::analysis
