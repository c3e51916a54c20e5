#include "analysis/selection_keywords.hpp"

#include <algorithm>
#include <cctype>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

namespace pairhist::analysis {
namespace {

const char* const kKeywords[] = {"name",  "resname", "resid",  "resnr", "index", "atomnr",
                                 "group", "element", "type",   "all",   "and",   "or",
                                 "not",   "within",  "around", "of"};

}  // namespace

bool is_keyword(const std::string& word) {
  return std::any_of(std::begin(kKeywords), std::end(kKeywords),
                     [&](const char* k) { return word == k; });
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
      {"atomname", "name"},   {"atomnames", "name"}, {"names", "name"},   {"resnames", "resname"},
      {"residue", "resname"}, {"resnum", "resid"},   {"resids", "resid"}, {"atomnum", "index"},
      {"serial", "index"},    {"bynum", "index"},    {"id", "index"},     {"atomtype", "type"},
      {"types", "type"},      {"elem", "element"},   {"groups", "group"}, {"everything", "all"},
      {"&&", "and"},          {"||", "or"},          {"!", "not"}};
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
