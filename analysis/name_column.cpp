#include "analysis/name_column.hpp"

#include <algorithm>
#include <stdexcept>

namespace pairhist::analysis {

NameColumn::NameColumn(std::initializer_list<std::string_view> values) {
  ids_.reserve(values.size());
  for (std::string_view v : values) push_back(v);
}

NameColumn::NameColumn(const std::vector<std::string>& values) {
  ids_.reserve(values.size());
  for (const std::string& v : values) push_back(v);
}

NameColumn::NameColumn(std::vector<std::string> distinct, std::vector<Id> ids)
    : distinct_(std::move(distinct)), ids_(std::move(ids)) {
  for (Id id : ids_)
    if (id >= distinct_.size()) throw std::logic_error("NameColumn: id beyond its table");
}

void NameColumn::assign(size_t n, std::string_view value) {
  ids_.clear();
  const Id id = intern(value);
  ids_.assign(n, id);
}

NameColumn::Id NameColumn::intern(std::string_view value) {
  // The column may have come from ids: the lookup is built at the first intern.
  if (index_.size() != distinct_.size()) {
    index_.clear();
    for (size_t k = 0; k < distinct_.size(); ++k) index_.emplace(distinct_[k], static_cast<Id>(k));
  }
  // Consecutive atoms mostly repeat a value (a residue's name, a solvent's atoms).
  if (!ids_.empty() && distinct_[ids_.back()] == value) return ids_.back();
  const auto [it, added] = index_.emplace(std::string(value), static_cast<Id>(distinct_.size()));
  if (added) distinct_.emplace_back(value);
  return it->second;
}

bool NameColumn::contains(std::string_view value) const {
  // A value no atom uses may stay in the table (after set()), so the ids decide.
  const auto k = std::find(distinct_.begin(), distinct_.end(), value);
  if (k == distinct_.end()) return false;
  const Id id = static_cast<Id>(k - distinct_.begin());
  return std::find(ids_.begin(), ids_.end(), id) != ids_.end();
}

std::vector<std::string> NameColumn::to_vector() const {
  return std::vector<std::string>(begin(), end());
}

bool operator==(const NameColumn& a, const NameColumn& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i]) return false;
  return true;
}

bool operator==(const NameColumn& a, const std::vector<std::string>& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
}

}  // namespace pairhist::analysis
