#include "analysis/selection.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <vector>

#include "analysis/selection_keywords.hpp"
#include "analysis/selection_match.hpp"
#include "analysis/selection_text.hpp"
#include "analysis/selection_tree.hpp"
#include "pairhist/errors.hpp"

namespace pairhist::analysis {
namespace {

using Mask = AtomMask;
using Node = SelectionNodePtr;

// Selections are shown in messages up to this length (they come from the command line or a
// config file, and may be long).
constexpr size_t kShownLength = 200;
// Deepest nesting of parentheses and `not` accepted.
constexpr int kMaxNesting = 200;

/// Whether `word` is exactly a value of `values` (an atom or residue name).
bool names_one(const NameColumn& values, const std::string& word) {
  return values.contains(word);
}

/// The value of `values` that `word` spells in another case ("sol" for SOL), or "".
std::string other_case(const NameColumn& values, const std::string& word) {
  const auto lower = [](std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  };
  const std::string w = lower(word);
  for (const std::string& v : values.distinct())
    if (v != word && lower(v) == w) return v;
  return "";
}

/// The keyword a word that is none was probably meant as: an alias's (`atomname`), else none
/// where the topology has an atom, residue or group of that name (`OW` is an atom's name, not a
/// misspelt `or`), else a keyword one or two edits away (keyword_meant).
std::string misspelt_keyword(const Topology& top, const IndexGroups* groups,
                             const std::string& word) {
  if (std::string alias = keyword_alias(word); !alias.empty()) return alias;
  if (names_one(top.atom_names, word) || names_one(top.residue_names, word) ||
      (groups && groups->find(word)))
    return "";
  return keyword_meant(word);
}

/// Recursive-descent evaluation over all atoms at once: every node yields a mask.
class Parser {
 public:
  /// `text` is parsed; `shown` (what the user wrote) appears in error messages.
  Parser(const Topology& top, const std::string& text, const std::string& shown,
         const std::string& topology_path, const IndexGroups* groups)
      : top_(top), text_(shown), path_(topology_path), groups_(groups) {
    tokens_ = tokenize_selection(text);
  }

  Node parse() {
    Node m = expression();
    if (pos_ != tokens_.size()) fail("unexpected '" + excerpt(tokens_[pos_]) + "'");
    return m;
  }

 private:
  [[noreturn]] void fail(const std::string& problem) const {
    throw UsageError("selection '" + excerpt(text_, kShownLength) + "': " + problem);
  }
  /// For problems of the topology file rather than of the expression.
  [[noreturn]] void fail_topology(const std::string& problem) const {
    throw UsageError(path_ + ": selection '" + excerpt(text_, kShownLength) + "': " + problem);
  }
  bool at(const char* t) const { return pos_ < tokens_.size() && tokens_[pos_] == t; }
  bool at_operand_end() const {
    return pos_ >= tokens_.size() || tokens_[pos_] == ")" || tokens_[pos_] == "(" ||
           is_keyword(tokens_[pos_]);
  }

  Node expression() {
    Node m = conjunction();
    while (at("or")) {
      ++pos_;
      m = or_node(std::move(m), conjunction());
    }
    return m;
  }

  Node conjunction() {
    Node m = factor();
    while (at("and")) {
      ++pos_;
      m = and_node(std::move(m), factor());
    }
    return m;
  }

  // Each `not` and `(` recurses; a bound keeps a pathological selection from exhausting the stack.
  struct Nesting {
    explicit Nesting(Parser& p) : parser(p) {
      if (++parser.depth_ > kMaxNesting)
        parser.fail("nested deeper than " + std::to_string(kMaxNesting) + " levels");
    }
    ~Nesting() { --parser.depth_; }
    Parser& parser;
  };

  Node factor() {
    if (pos_ >= tokens_.size()) fail("expression ends too early");
    const std::string t = tokens_[pos_++];
    if (t == "not") {
      const Nesting nesting(*this);
      return not_node(factor());
    }
    if (t == "(") {
      const Nesting nesting(*this);
      Node m = expression();
      if (!at(")")) fail("missing ')'");
      ++pos_;
      return m;
    }
    if (t == "within" || t == "around") {
      const Nesting nesting(*this);
      return by_distance(t);
    }
    if (t == "all") return atoms_node(Mask(static_cast<size_t>(top_.natoms()), 1));
    if (t == "name") return atoms_node(by_pattern(top_.atom_names, t));
    if (t == "resname") return atoms_node(by_pattern(top_.residue_names, t));
    // resnr and atomnr are gmx's own names of the same numbers (`gmx select`: 'resnr 2 to 3' and
    // 'resid 2 to 3' pick the same atoms; 'atomnr 4 to 9' is 1-based, as index).
    if (t == "resid" || t == "resnr")
      return atoms_node(by_range(t, [&](int i) { return top_.residue_numbers[i]; }));
    if (t == "index" || t == "atomnr") return atoms_node(by_range(t, [](int i) { return i + 1; }));
    if (t == "group") return atoms_node(by_group());
    if (t == "element") return atoms_node(by_element());
    if (t == "type") return atoms_node(by_type());
    if (t == "segid") return atoms_node(by_pattern(top_.segment_names, t));
    if (t == "mass") return atoms_node(by_value(t, top_.masses));
    if (t == "charge") return atoms_node(by_value(t, top_.charges));
    fail(unknown_word(t));
  }

  /// `within R of SEL` (GROMACS) or `around R SEL` (MDAnalysis), R in nm; SEL is one operand as
  /// `not` takes it (a keyword with its values, `not ...`, or parentheses).
  Node by_distance(const std::string& keyword) {
    const std::string form = keyword == "within" ? "'within R of SEL'" : "'around R SEL'";
    if (pos_ >= tokens_.size()) fail(form + " needs a distance R (nm)");
    const std::string r = tokens_[pos_++];
    char* end = nullptr;
    const double radius = std::strtod(r.c_str(), &end);
    if (end == r.c_str() || *end != '\0' || !std::isfinite(radius) || radius < 0)
      fail(form + ": '" + excerpt(r) + "' is not a distance (nm, >= 0)");
    if (keyword == "within") {
      if (!at("of")) fail(form + ": 'of' expected after the distance");
      ++pos_;
    }
    return distance_node(radius, factor(), keyword == "around");
  }

  /// Why a bare word cannot stand where a keyword must, and what was probably meant.
  std::string unknown_word(const std::string& word) const {
    const std::string w = excerpt(word);
    if (const std::string k = misspelt_keyword(top_, groups_, word); !k.empty())
      return "unknown keyword '" + w + "': did you mean '" + k + "'?";
    std::string meant;
    if (names_one(top_.atom_names, word))
      meant = "name " + w;
    else if (names_one(top_.residue_names, word))
      meant = "resname " + w;
    else if (groups_ && groups_->find(word))
      meant = "group " + w;
    if (!meant.empty())
      return "'" + w + "' is not a keyword: a value needs its keyword, e.g. '" + meant +
             "' (keywords: " + kSelectionKeywordList + ")";
    return "unknown keyword '" + w + "' (keywords: " + kSelectionKeywordList + ")";
  }

  Mask by_group() {
    std::vector<std::string> names;
    while (!at_operand_end()) names.push_back(tokens_[pos_++]);
    if (names.empty()) fail("'group' needs at least one group name");
    if (!groups_) fail("'group' needs an index file (--index FILE.ndx) or a .tpr topology");
    Mask m(static_cast<size_t>(top_.natoms()), 0);
    for (const auto& name : names) {
      const std::vector<int>* atoms = groups_->find(name);
      if (!atoms) {
        std::string known;
        for (const auto& n : groups_->names) known += (known.empty() ? "" : ", ") + n;
        fail("no group '" + excerpt(name) + "' in " + groups_->path +
             " (it has: " + excerpt(known, kShownLength) + ")");
      }
      for (int a : *atoms)
        if (a >= 0 && a < top_.natoms()) m[static_cast<size_t>(a)] = 1;
    }
    return m;
  }

  // Elements and types exist only where the file states them; the messages say what to use
  // instead, so that nobody is tempted to guess elements from atom names.
  Mask by_element() {
    const std::vector<std::string> patterns = take_patterns("element");
    if (top_.elements.empty()) {
      if (!top_.types.empty())
        fail_topology("this file has atom types, not elements: select with 'type' (or 'name')");
      fail_topology("this file carries no element symbols: select by atom name instead ('name')");
    }
    require_every_atom(top_.elements, "element symbol", /*massless_may_lack=*/true);
    return match_names(top_.elements, patterns, FNM_CASEFOLD);
  }

  Mask by_type() {
    const std::vector<std::string> patterns = take_patterns("type");
    if (top_.types.empty())
      fail_topology(std::string("this file carries no atom types: select with 'name'") +
                    (top_.elements.empty() ? "" : " or 'element'") + " instead");
    require_every_atom(top_.types, "atom type");
    return match_names(top_.types, patterns, 0);
  }

  // With massless_may_lack, an atom of mass 0 (a virtual site such as TIP4P's MW, which a .tpr
  // gives no atomic number) may lack the value: it is no element, so no element selects it.
  // Atoms with mass and no element stay an error: leaving them out would drop real atoms.
  void require_every_atom(const NameColumn& values, const std::string& what,
                          bool massless_may_lack = false) const {
    if (values.size() != static_cast<size_t>(top_.natoms()))
      fail_topology("the topology has " + std::to_string(values.size()) + " " + what + "s for " +
                    std::to_string(top_.natoms()) + " atoms");
    const auto empty = std::find(values.distinct().begin(), values.distinct().end(), "");
    if (empty == values.distinct().end()) return;
    const auto id = static_cast<NameColumn::Id>(empty - values.distinct().begin());
    const bool masses = massless_may_lack && top_.masses.size() == values.size();
    auto lacking = [&](NameColumn::Id v) { return v == id; };
    auto atom = std::find_if(values.ids().begin(), values.ids().end(), lacking);
    while (atom != values.ids().end() && masses &&
           top_.masses[static_cast<size_t>(atom - values.ids().begin())] == 0.0f)
      atom = std::find_if(atom + 1, values.ids().end(), lacking);
    if (atom == values.ids().end()) return;
    const auto i = static_cast<size_t>(atom - values.ids().begin());
    fail_topology("atom " + std::to_string(i + 1) + " (" + top_.atom_names[i] + ") has no " + what +
                  "; select by atom name instead ('name')");
  }

  std::vector<std::string> take_patterns(const std::string& keyword) {
    std::vector<std::string> patterns;
    while (!at_operand_end()) patterns.push_back(tokens_[pos_++]);
    if (patterns.empty()) fail("'" + keyword + "' needs at least one pattern");
    return patterns;
  }

  Mask by_pattern(const NameColumn& values, const std::string& keyword) {
    const std::vector<std::string> patterns = take_patterns(keyword);
    if (values.size() != static_cast<size_t>(top_.natoms()))
      fail("the topology has no " + keyword + " information");
    return match_names(values, patterns, 0);
  }

  /// `mass` or `charge` values and ranges (parse_value_range), where the topology states them.
  Mask by_value(const std::string& keyword, const std::vector<float>& values) {
    std::vector<std::pair<double, double>> ranges;
    for (const std::string& r : take_patterns(keyword)) {
      double lo = 0, hi = 0;
      if (!parse_value_range(r, lo, hi))
        fail("'" + excerpt(r) + "' is not a number or range A:B for " + keyword);
      ranges.emplace_back(lo, hi);
    }
    if (values.size() != static_cast<size_t>(top_.natoms()))
      fail_topology(std::string("this file states no ") +
                    (keyword == "mass" ? "masses" : "charges") + ": give a .tpr or .psf topology");
    return match_values(values, ranges);
  }

  /// One integer token of a range list; false where it is not all a number that fits a long.
  static bool whole_number(const std::string& r, long& value) {
    char* end = nullptr;
    errno = 0;
    value = std::strtol(r.c_str(), &end, 10);
    return errno == 0 && end != r.c_str() && *end == '\0';
  }

  /// A residue number with an insertion code ("12A": 12 and "A"); false for anything else.
  static bool coded_residue(const std::string& r, long& number, std::string& code) {
    size_t digits = r[0] == '-' ? 1 : 0;
    const size_t first = digits;
    while (digits < r.size() && std::isdigit(static_cast<unsigned char>(r[digits]))) ++digits;
    if (digits == first || digits == r.size()) return false;
    for (size_t k = digits; k < r.size(); ++k)
      if (!std::isalpha(static_cast<unsigned char>(r[k]))) return false;
    code = r.substr(digits);
    return whole_number(r.substr(0, digits), number);
  }

  Mask by_range(const std::string& keyword, const std::function<int(int)>& value_of) {
    std::vector<std::pair<long, long>> ranges;
    std::vector<std::pair<long, std::string>> coded;  // resid 12A: residue 12, insertion code A
    const bool residues = keyword == "resid" || keyword == "resnr";
    while (!at_operand_end()) {
      const std::string r = tokens_[pos_++];
      if (r == "to") fail("'to' needs a number before it (A to B) for " + keyword);
      long number = 0;
      std::string code;
      if (residues && !at("to") && coded_residue(r, number, code)) {
        if (top_.insertion_codes.size() != static_cast<size_t>(top_.natoms()))
          fail_topology("'" + excerpt(r) + "': this file has no insertion codes (a .psf has)");
        coded.emplace_back(number, code);
        continue;
      }
      // "A to B" (GROMACS) spans three tokens. As gmx 2022 does, a reversed one ("10 to 1")
      // selects the same as "1 to 10": a selection copied from gmx selects the same atoms.
      if (at("to")) {
        ++pos_;
        long lo = 0;
        long hi = 0;
        if (!whole_number(r, lo))
          fail("'" + excerpt(r) + "' is not a number before 'to' for " + keyword);
        if (at_operand_end() || at("to"))
          fail("'" + excerpt(r) + " to' needs a number after 'to' for " + keyword);
        const std::string b = tokens_[pos_++];
        if (!whole_number(b, hi))
          fail("'" + excerpt(b) + "' is not a number after '" + excerpt(r) + " to' for " + keyword);
        if (at("to")) fail("'" + excerpt(r) + " to " + excerpt(b) + " to': one 'to' per range");
        ranges.emplace_back(std::min(lo, hi), std::max(lo, hi));
        continue;
      }
      // "A", "A-B" or "A:B"; A may be negative. Positions are compared as indices, so that no
      // pointer is formed past the token.
      const size_t sep = r.find_first_of("-:", 1);
      char* end = nullptr;
      errno = 0;
      const long lo = std::strtol(r.c_str(), &end, 10);
      long hi = lo;
      const size_t used = static_cast<size_t>(end - r.c_str());
      bool ok = errno == 0 && used > 0 && (used == r.size() || used == sep);
      if (ok && used == sep) {
        const char* s = r.c_str() + sep + 1;
        hi = std::strtol(s, &end, 10);
        ok = errno == 0 && end != s && *end == '\0';
      }
      if (!ok || hi < lo)
        fail("'" + excerpt(r) + "' is not a number, range A-B or A to B for " + keyword);
      ranges.emplace_back(lo, hi);
    }
    if (ranges.empty() && coded.empty())
      fail("'" + keyword + "' needs at least one number or range (A-B, A to B)");
    if (residues && top_.residue_numbers.size() != static_cast<size_t>(top_.natoms()))
      fail("the topology has no residue numbers");
    Mask m(static_cast<size_t>(top_.natoms()), 0);
    for (int i = 0; i < top_.natoms(); ++i) {
      const long v = value_of(i);
      for (const auto& [lo, hi] : ranges)
        if (v >= lo && v <= hi) {
          m[static_cast<size_t>(i)] = 1;
          break;
        }
      // A number alone selects its residues whatever their codes; "12A" only the one coded A.
      for (const auto& [number, code] : coded)
        if (v == number && top_.insertion_codes[static_cast<size_t>(i)] == code)
          m[static_cast<size_t>(i)] = 1;
    }
    return m;
  }

  const Topology& top_;
  const std::string& text_;
  const std::string& path_;
  const IndexGroups* groups_;
  std::vector<std::string> tokens_;
  size_t pos_ = 0;
  int depth_ = 0;
};

}  // namespace

bool uses_groups(const std::string& selection) {
  for (const auto& t : tokenize_selection(as_expression(selection)))
    if (t == "group") return true;
  return false;
}

Selection parse_selection(const Topology& topology, const std::string& selection,
                          const std::string& topology_path, const IndexGroups* groups) {
  const std::string expr = as_expression(selection);
  const std::string shown = excerpt(selection, kShownLength);
  const auto tokens = tokenize_selection(expr);
  if (tokens.size() < 2 && expr != "all") throw UsageError("empty selection '" + shown + "'");
  // Several words that do not start with a keyword: once read as a name list, so that
  // "nam OW" selected OW. The parser now refuses the first word, saying what was meant; a bare
  // list of several names ("NA or CL") gets the spelling that works.
  if (!is_keyword(tokens[0]) && tokens[0] != "(" &&
      misspelt_keyword(topology, groups, tokens[0]).empty()) {
    bool all_names = true;
    std::string names, list;
    for (const auto& t : tokens) {
      if (t == "or") continue;
      all_names = all_names && !is_keyword(t) && t != "(" && t != ")";
      names += (names.empty() ? "" : " or name ") + t;
      list += (list.empty() ? "" : ",") + t;
    }
    if (all_names && tokens.size() > 1 && names_one(topology.atom_names, tokens[0]))
      throw UsageError("selection '" + shown + "': '" + excerpt(tokens[0]) +
                       "' is not a keyword: write 'name " + excerpt(names) +
                       "', or the names as one list without spaces (" + excerpt(list) + ")");
  }
  Selection parsed(Parser(topology, expr, selection, topology_path, groups).parse(),
                   topology.natoms());
  if (parsed.superset().empty()) {
    // A name list that names no atom but a residue or a group: gmx's group names (SOL) are the
    // likeliest.
    std::string hint;
    if (is_name_list(selection)) {
      const std::string word = excerpt(tokenize_selection(joined_lists(selection))[0]);
      if (names_one(topology.residue_names, word))
        hint = " (as atom names; did you mean 'resname " + word + "'?)";
      else if (groups && groups->find(word))
        hint = " (as atom names; did you mean 'group " + word + "'?)";
      else if (const std::string atom = other_case(topology.atom_names, word); !atom.empty())
        hint = " (names are case-sensitive: did you mean '" + atom + "'?)";
      else if (const std::string res = other_case(topology.residue_names, word); !res.empty())
        hint = " (as atom names; names are case-sensitive: did you mean 'resname " + res + "'?)";
    }
    throw InputError(topology_path + ": selection '" + shown + "' matches no atom" + hint);
  }
  return parsed;
}

std::vector<int> select_atoms(const Topology& topology, const std::string& selection,
                              const std::string& topology_path, const IndexGroups* groups) {
  Selection parsed = parse_selection(topology, selection, topology_path, groups);
  if (parsed.dynamic())
    throw UsageError("selection '" + excerpt(selection, kShownLength) +
                     "' changes from frame to frame (within/around): this command needs a "
                     "fixed selection");
  return parsed.take_superset();
}

}  // namespace pairhist::analysis
