#include "analysis/positions.hpp"

#include <cctype>
#include <cmath>
#include <cstdlib>

#include "analysis/selection_keywords.hpp"
#include "pairhist/errors.hpp"

namespace pairhist::analysis {
namespace {

const char* const kPrefixes[] = {"", "whole_", "part_", "dyn_"};
const char* const kCentres[] = {"res_com", "res_cog", "mol_com", "mol_cog"};

/// The words at the start of `text`: the first two, and where the text after the second begins.
struct LeadingWords {
  std::string first, second;
  size_t rest = 0;
};

LeadingWords leading_words(const std::string& text) {
  LeadingWords w;
  size_t i = 0;
  const auto word = [&](std::string& out) {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    while (i < text.size() && !std::isspace(static_cast<unsigned char>(text[i])) &&
           text[i] != '(' && text[i] != ')')
      out += text[i++];
  };
  word(w.first);
  word(w.second);
  w.rest = i;
  return w;
}

/// The position type closest to a misspelt one, or "".
std::string type_meant(const std::string& word) {
  std::string best;
  size_t best_distance = 3;  // at most two edits
  for (const char* prefix : kPrefixes)
    for (const char* centre : kCentres) {
      const std::string name = std::string(prefix) + centre;
      const size_t d = edit_distance(word, name);
      if (d < best_distance) best = name, best_distance = d;
    }
  return best;
}

/// "point centre" or "point X,Y,Z" (`rest`: after "point"), a species of one position.
PositionSelection point_selection(const std::string& selection, std::string rest) {
  const auto fail = [&](const std::string& problem) {
    throw UsageError("selection '" + excerpt(selection, 200) + "': " + problem);
  };
  PositionSelection out;
  out.stated = true;
  for (char& c : rest)
    if (c == ',') c = ' ';
  std::vector<std::string> words;
  for (size_t i = 0; i < rest.size();) {
    while (i < rest.size() && std::isspace(static_cast<unsigned char>(rest[i]))) ++i;
    const size_t b = i;
    while (i < rest.size() && !std::isspace(static_cast<unsigned char>(rest[i]))) ++i;
    if (i > b) words.push_back(rest.substr(b, i - b));
  }
  if (words.size() == 1 && (words[0] == "centre" || words[0] == "center")) {
    out.point = PointKind::box_centre;
    return out;
  }
  const char* form =
      "'point X,Y,Z' (a fixed position, in the run's length unit) or 'point centre' "
      "(the box's centre) expected";
  if (words.size() != 3) fail(form);
  for (size_t d = 0; d < 3; ++d) {
    char* end = nullptr;
    out.point_xyz[d] = std::strtod(words[d].c_str(), &end);
    if (end == words[d].c_str() || *end != '\0' || !std::isfinite(out.point_xyz[d]))
      fail("'" + excerpt(words[d]) + "' is not a coordinate: " + form);
  }
  out.point = PointKind::fixed;
  return out;
}

}  // namespace

std::string position_type_name(const PositionType& t) {
  if (t.is_atom()) return "atom";
  return std::string(t.whole ? "whole_" : "") + (t.unit == PositionUnit::residue ? "res" : "mol") +
         (t.mass_weighted ? "_com" : "_cog");
}

namespace {

/// Per atom, its residue or molecule (numbered in atom order, each a run of consecutive atoms).
std::vector<int> units_of(const Topology& top, const std::string& path, const PositionType& t) {
  if (t.unit == PositionUnit::residue)
    return residue_of_atoms(top, path, position_type_name(t) + " positions");
  const auto n = static_cast<size_t>(top.natoms());
  if (top.molecule_index.size() != n)
    throw UsageError(
        path + ": " + position_type_name(t) +
        " positions need molecules, which only a .tpr or .psf topology states (use res_" +
        (t.mass_weighted ? "com" : "cog") + ", or give the .tpr)");
  for (size_t i = 1; i < n; ++i)
    if (top.molecule_index[i] != top.molecule_index[i - 1] &&
        top.molecule_index[i] != top.molecule_index[i - 1] + 1)
      throw InputError(path + ": the atoms of molecule " +
                       std::to_string(top.molecule_index[i] + 1) + " are not consecutive");
  return top.molecule_index;
}

}  // namespace

bool parse_position_type(const std::string& word, PositionType& type) {
  if (word == "atom") {
    type = PositionType{};
    return true;
  }
  for (const char* prefix : kPrefixes)
    for (const char* centre : kCentres)
      if (word == std::string(prefix) + centre) {
        type.unit = centre[0] == 'r' ? PositionUnit::residue : PositionUnit::molecule;
        type.mass_weighted = centre[6] == 'm';
        type.whole = std::string(prefix) == "whole_";
        return true;
      }
  return false;
}

std::string position_type_list() {
  return "atom, res_com, res_cog, mol_com, mol_cog, each but atom also with a prefix whole_, "
         "part_ or dyn_";
}

PositionSelection split_position_type(const std::string& selection,
                                      const PositionType& default_type) {
  PositionSelection out;
  const LeadingWords w = leading_words(selection);
  const auto fail = [&](const std::string& problem) {
    throw UsageError("selection '" + excerpt(selection, 200) + "': " + problem);
  };
  if (w.first == "point")
    return point_selection(selection, selection.substr(w.rest - w.second.size()));
  PositionType stated;
  const bool is_type = parse_position_type(w.first, stated);
  if (w.second == "of") {
    if (w.first == "com" || w.first == "cog")
      fail("'" + w.first +
           " of' (one centre of the whole selection) is not supported: per residue or "
           "molecule, write res_" +
           w.first + " of ... or mol_" + w.first + " of ...");
    if (!is_type) {
      const std::string meant = type_meant(w.first);
      fail("unknown position type '" + excerpt(w.first) + "'" +
           (meant.empty() ? "" : ": did you mean '" + meant + "'?") +
           " (position types: " + position_type_list() + ")");
    }
    out.type = stated;
    out.stated = true;
    out.atoms_text = selection.substr(w.rest);
    return out;
  }
  if (is_type && !w.first.empty()) {
    // The words after the type, as the user wrote them, for the spelling that works.
    std::string rest = selection.substr(selection.find(w.first) + w.first.size());
    rest.erase(0, rest.find_first_not_of(" \t\r\n\f\v"));
    fail("'" + w.first + "' needs 'of' before the atoms: '" + w.first + " of " +
         (rest.empty() ? "resname SOL" : excerpt(rest, 100)) + "'");
  }
  out.type = default_type;
  out.atoms_text = selection;
  return out;
}

std::vector<int> centre_atoms(const Topology& top, const std::string& topology_path,
                              const PositionType& type, const std::vector<int>& atoms) {
  if (!type.whole) return atoms;
  const std::vector<int> unit = units_of(top, topology_path, type);
  std::vector<int> out;
  for (int a = 0, k = 0; a < top.natoms(); ++a) {
    const int u = unit[static_cast<size_t>(a)];
    while (k < static_cast<int>(atoms.size()) &&
           unit[static_cast<size_t>(atoms[static_cast<size_t>(k)])] < u)
      ++k;
    if (k < static_cast<int>(atoms.size()) &&
        unit[static_cast<size_t>(atoms[static_cast<size_t>(k)])] == u)
      out.push_back(a);
  }
  return out;
}

std::vector<int> Centres::add(const Topology& top, const std::string& topology_path,
                              const PositionType& type, const std::vector<int>& atoms,
                              const std::vector<double>& masses) {
  if (type.is_atom()) return atoms;
  const std::vector<int> unit = units_of(top, topology_path, type);
  const int natoms = top.natoms();
  std::vector<int> positions, members;
  size_t k = 0;
  while (k < atoms.size()) {
    const int u = unit[static_cast<size_t>(atoms[k])];
    members.clear();
    if (type.whole) {
      int first = atoms[k];
      while (first > 0 && unit[static_cast<size_t>(first - 1)] == u) --first;
      for (int a = first; a < natoms && unit[static_cast<size_t>(a)] == u; ++a)
        members.push_back(a);
    }
    for (; k < atoms.size() && unit[static_cast<size_t>(atoms[k])] == u; ++k)
      if (!type.whole) members.push_back(atoms[k]);
    if (members.size() == 1) {  // the atom itself, exactly
      positions.push_back(members[0]);
      continue;
    }
    const auto key = std::make_pair(static_cast<char>(type.mass_weighted), members);
    if (const auto it = known_.find(key); it != known_.end()) {
      positions.push_back(natoms + it->second);
      continue;
    }
    double total = 0;
    for (int a : members) {
      const double w = type.mass_weighted ? masses.at(static_cast<size_t>(a)) : 1.0;
      weights_.push_back(w);
      total += w;
    }
    if (!(total > 0))
      throw UsageError(topology_path + ": the " +
                       (type.unit == PositionUnit::residue ? "residue" : "molecule") + " of atom " +
                       std::to_string(members[0] + 1) +
                       " has no mass, so no centre of mass (use _cog positions)");
    members_.insert(members_.end(), members.begin(), members.end());
    offsets_.push_back(static_cast<int64_t>(members_.size()));
    inverse_weight_.push_back(1 / total);
    const int index = static_cast<int>(inverse_weight_.size()) - 1;
    known_.emplace(key, index);
    positions.push_back(natoms + index);
  }
  return positions;
}

int Centres::add_point(int natoms, bool box_centre, const std::array<double, 3>& xyz) {
  offsets_.push_back(offsets_.back());  // no atoms
  inverse_weight_.push_back(0);
  if (point_kind_.size() + 1 < inverse_weight_.size())
    point_kind_.resize(inverse_weight_.size() - 1, 0);
  point_kind_.push_back(box_centre ? 2 : 1);
  points_.resize(inverse_weight_.size());
  points_.back() = xyz;
  return natoms + static_cast<int>(inverse_weight_.size()) - 1;
}

int64_t Centres::compute(const float* xyz, const BoxMatrix& box, BoxKind kind, float* out) const {
  Box<double> cell;
  cell.ax = box[0], cell.bx = box[3], cell.by = box[4];
  cell.cx = box[6], cell.cy = box[7], cell.cz = box[8];
  if (kind != BoxKind::none) cell.inv_ax = 1 / cell.ax, cell.inv_by = 1 / cell.by;
  if (kind != BoxKind::none) cell.inv_cz = 1 / cell.cz;
  int64_t bad = -1;
  for (size_t c = 0; c < size(); ++c) {
    if (c < point_kind_.size() && point_kind_[c] != 0) {
      if (point_kind_[c] == 2 && kind == BoxKind::none) return kNoBoxForCentre;
      for (int i = 0; i < 3; ++i)
        out[3 * c + static_cast<size_t>(i)] =
            static_cast<float>(point_kind_[c] == 1 ? points_[c][static_cast<size_t>(i)]
                                                   : 0.5 * (box[static_cast<size_t>(i)] +
                                                            box[3 + static_cast<size_t>(i)] +
                                                            box[6 + static_cast<size_t>(i)]));
      continue;
    }
    const auto begin = static_cast<size_t>(offsets_[c]), end = static_cast<size_t>(offsets_[c + 1]);
    const float* p = xyz + 3 * static_cast<size_t>(members_[begin]);
    const double ref[3] = {p[0], p[1], p[2]};
    double previous[3] = {ref[0], ref[1], ref[2]}, sum[3] = {0, 0, 0};
    for (size_t m = begin + 1; m < end; ++m) {
      p = xyz + 3 * static_cast<size_t>(members_[m]);
      // The image of this atom nearest the one before it: a molecule made whole along its chain.
      double d[3] = {p[0] - previous[0], p[1] - previous[1], p[2] - previous[2]};
      if (kind == BoxKind::orthorhombic)
        wrap_orthorhombic(cell, d[0], d[1], d[2]);
      else if (kind == BoxKind::triclinic)
        reduce_triclinic(cell, d[0], d[1], d[2]);
      for (int i = 0; i < 3; ++i) {
        previous[i] += d[i];
        sum[i] += weights_[m] * (previous[i] - ref[i]);
      }
    }
    float* centre = out + 3 * c;
    for (int i = 0; i < 3; ++i)
      centre[i] = static_cast<float>(ref[i] + sum[i] * inverse_weight_[c]);
    if (bad < 0 &&
        !(std::isfinite(centre[0]) && std::isfinite(centre[1]) && std::isfinite(centre[2])))
      for (size_t m = begin; m < end && bad < 0; ++m)
        for (int i = 0; i < 3; ++i)
          if (!std::isfinite(xyz[3 * static_cast<size_t>(members_[m]) + i])) bad = members_[m];
  }
  return bad;
}

}  // namespace pairhist::analysis
