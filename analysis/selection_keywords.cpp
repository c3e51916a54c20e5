#include "analysis/selection_keywords.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

namespace pairhist::analysis {
namespace {

const char* const kKeywords[] = {
    "name", "resname", "resid", "resnr",  "index",  "atomnr", "group", "element", "type",  "all",
    "and",  "or",      "not",   "within", "around", "of",     "segid", "mass",    "charge"};

bool parse_real(const std::string& s, double& v) {
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  v = std::strtod(s.c_str(), &end);
  return errno == 0 && end == s.c_str() + s.size() && std::isfinite(v);
}

}  // namespace

bool is_keyword(const std::string& word) {
  return std::any_of(std::begin(kKeywords), std::end(kKeywords),
                     [&](const char* k) { return word == k; });
}

bool parse_value_range(const std::string& token, double& lo, double& hi) {
  constexpr double kStatedPrecision = 1e-3;
  size_t sep = token.find(':');
  // A '-' after the first character that is no exponent's sign separates a range.
  for (size_t k = 1; sep == std::string::npos && k < token.size(); ++k)
    if (token[k] == '-' && token[k - 1] != 'e' && token[k - 1] != 'E') sep = k;
  if (sep == std::string::npos) {
    double v = 0;
    if (!parse_real(token, v)) return false;
    lo = v - kStatedPrecision, hi = v + kStatedPrecision;
    return true;
  }
  return parse_real(token.substr(0, sep), lo) && parse_real(token.substr(sep + 1), hi) && lo <= hi;
}

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      const bool same = std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                        std::tolower(static_cast<unsigned char>(b[j - 1]));
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (same ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string keyword_alias(const std::string& word) {
  static const std::pair<const char*, const char*> kAliases[] = {
      {"atomname", "name"},   {"atomnames", "name"}, {"names", "name"},     {"resnames", "resname"},
      {"residue", "resname"}, {"resnum", "resid"},   {"resids", "resid"},   {"atomnum", "index"},
      {"serial", "index"},    {"bynum", "index"},    {"id", "index"},       {"atomtype", "type"},
      {"types", "type"},      {"elem", "element"},   {"segname", "segid"},  {"masses", "mass"},
      {"charges", "charge"},  {"groups", "group"},   {"everything", "all"}, {"&&", "and"},
      {"||", "or"},           {"!", "not"}};
  std::string lower;
  for (char c : word) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const auto& [alias, keyword] : kAliases)
    if (lower == alias) return keyword;
  return "";
}

std::string keyword_meant(const std::string& word) {
  if (std::string alias = keyword_alias(word); !alias.empty()) return alias;
  std::string lower;
  for (char c : word) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::string best;
  size_t best_distance = 3;
  for (const char* k : kKeywords) {
    const size_t d = edit_distance(lower, k);
    // One edit in a short keyword, two in a long one; never a whole different word.
    if (d < best_distance && d <= (std::string(k).size() <= 4 ? size_t(1) : size_t(2)) &&
        lower != k)
      best = k, best_distance = d;
  }
  return best;
}

}  // namespace pairhist::analysis
