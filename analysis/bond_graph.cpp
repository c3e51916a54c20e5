#include "analysis/bond_graph.hpp"

#include <algorithm>
#include <numeric>

namespace pairhist::analysis {
namespace {

// Bonds as compressed rows: the neighbours of atom i are to[from[i] .. from[i + 1]).
struct Neighbours {
  std::vector<int64_t> from;
  std::vector<int> to;
};

Neighbours neighbours_of(int natoms, const BondList& bonds) {
  Neighbours g;
  g.from.assign(static_cast<size_t>(natoms) + 1, 0);
  for (const auto& [a, b] : bonds) {
    ++g.from[static_cast<size_t>(a) + 1];
    ++g.from[static_cast<size_t>(b) + 1];
  }
  std::partial_sum(g.from.begin(), g.from.end(), g.from.begin());
  g.to.resize(static_cast<size_t>(g.from.back()));
  std::vector<int64_t> next(g.from.begin(), g.from.end() - 1);
  for (const auto& [a, b] : bonds) {
    g.to[static_cast<size_t>(next[static_cast<size_t>(a)]++)] = b;
    g.to[static_cast<size_t>(next[static_cast<size_t>(b)]++)] = a;
  }
  return g;
}

int root(std::vector<int>& parent, int i) {
  while (parent[static_cast<size_t>(i)] != i) {
    parent[static_cast<size_t>(i)] = parent[static_cast<size_t>(parent[static_cast<size_t>(i)])];
    i = parent[static_cast<size_t>(i)];
  }
  return i;
}

}  // namespace

std::vector<int> molecules_from_bonds(int natoms, const BondList& bonds) {
  std::vector<int> parent(static_cast<size_t>(natoms));
  std::iota(parent.begin(), parent.end(), 0);
  for (const auto& [a, b] : bonds) {
    const int ra = root(parent, a);
    const int rb = root(parent, b);
    // The smaller root wins, so that every component's root is its first atom.
    if (ra != rb) parent[static_cast<size_t>(std::max(ra, rb))] = std::min(ra, rb);
  }
  std::vector<int> molecule(static_cast<size_t>(natoms), -1);
  int count = 0;
  for (int i = 0; i < natoms; ++i) {
    const int r = root(parent, i);
    if (r == i) molecule[static_cast<size_t>(i)] = count++;
    molecule[static_cast<size_t>(i)] = molecule[static_cast<size_t>(r)];
  }
  return molecule;
}

void exclusions_from_bonds(Topology& top, const BondList& bonds, int nrexcl) {
  const int natoms = top.natoms();
  const Neighbours g = neighbours_of(natoms, bonds);
  top.exclusion_offsets.assign(1, 0);
  top.exclusion_offsets.reserve(static_cast<size_t>(natoms) + 1);
  top.exclusion_atoms.clear();
  // A breadth-first walk of nrexcl steps from every atom; `seen` marks the atoms of the current
  // walk by the walk's number, so that it is never cleared.
  std::vector<int> seen(static_cast<size_t>(natoms), -1);
  std::vector<int> reached, frontier, next;
  for (int i = 0; i < natoms; ++i) {
    reached.assign(1, i);
    frontier.assign(1, i);
    seen[static_cast<size_t>(i)] = i;
    for (int step = 0; step < nrexcl && !frontier.empty(); ++step) {
      next.clear();
      for (int a : frontier)
        for (int64_t e = g.from[static_cast<size_t>(a)]; e < g.from[static_cast<size_t>(a) + 1];
             ++e) {
          const int b = g.to[static_cast<size_t>(e)];
          if (seen[static_cast<size_t>(b)] == i) continue;
          seen[static_cast<size_t>(b)] = i;
          next.push_back(b);
          reached.push_back(b);
        }
      frontier.swap(next);
    }
    std::sort(reached.begin(), reached.end());
    top.exclusion_atoms.insert(top.exclusion_atoms.end(), reached.begin(), reached.end());
    top.exclusion_offsets.push_back(static_cast<int64_t>(top.exclusion_atoms.size()));
  }
}

}  // namespace pairhist::analysis
