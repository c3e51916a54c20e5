// A per-atom text column (atom names, residue names, elements, types) stored as one small
// integer per atom into a table of the distinct values. An 11M-atom water box has three atom
// names and one residue name: as std::string per atom its two columns took 0.7 GB and most of
// the topology's reading time (issue 24); here they take 4 bytes per atom, and a selection
// matches each distinct value once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace pairhist::analysis {

class NameColumn {
 public:
  using Id = uint32_t;

  NameColumn() = default;
  NameColumn(std::initializer_list<std::string_view> values);
  explicit NameColumn(const std::vector<std::string>& values);
  /// From a reader that interned the values itself: `ids[i]` indexes `distinct`, whose entries
  /// must differ from each other.
  NameColumn(std::vector<std::string> distinct, std::vector<Id> ids);

  const std::string& operator[](size_t i) const { return distinct_[ids_[i]]; }
  const std::string& front() const { return (*this)[0]; }
  const std::string& back() const { return (*this)[ids_.size() - 1]; }
  size_t size() const { return ids_.size(); }
  bool empty() const { return ids_.empty(); }

  void push_back(std::string_view value) { ids_.push_back(intern(value)); }
  void emplace_back(std::string_view value) { push_back(value); }
  void reserve(size_t n) { ids_.reserve(n); }
  void assign(size_t n, std::string_view value);
  void set(size_t i, std::string_view value) { ids_[i] = intern(value); }

  /// Every value once, in order of first appearance; ids() index it per atom.
  const std::vector<std::string>& distinct() const { return distinct_; }
  const std::vector<Id>& ids() const { return ids_; }
  bool contains(std::string_view value) const;
  std::vector<std::string> to_vector() const;

  class const_iterator {
   public:
    using iterator_category = std::random_access_iterator_tag;
    using value_type = std::string;
    using difference_type = std::ptrdiff_t;
    using pointer = const std::string*;
    using reference = const std::string&;

    const_iterator() = default;
    const_iterator(const NameColumn* c, size_t i) : column_(c), i_(i) {}
    reference operator*() const { return (*column_)[i_]; }
    pointer operator->() const { return &(*column_)[i_]; }
    reference operator[](difference_type k) const { return (*column_)[i_ + k]; }
    const_iterator& operator++() { return ++i_, *this; }
    const_iterator operator++(int) { return {column_, i_++}; }
    const_iterator& operator--() { return --i_, *this; }
    const_iterator operator--(int) { return {column_, i_--}; }
    const_iterator& operator+=(difference_type k) { return i_ += k, *this; }
    const_iterator& operator-=(difference_type k) { return i_ -= k, *this; }
    friend const_iterator operator+(const_iterator a, difference_type k) { return a += k; }
    friend const_iterator operator+(difference_type k, const_iterator a) { return a += k; }
    friend const_iterator operator-(const_iterator a, difference_type k) { return a -= k; }
    friend difference_type operator-(const const_iterator& a, const const_iterator& b) {
      return static_cast<difference_type>(a.i_) - static_cast<difference_type>(b.i_);
    }
    friend bool operator==(const const_iterator& a, const const_iterator& b) {
      return a.i_ == b.i_;
    }
    friend bool operator!=(const const_iterator& a, const const_iterator& b) {
      return a.i_ != b.i_;
    }
    friend bool operator<(const const_iterator& a, const const_iterator& b) { return a.i_ < b.i_; }
    friend bool operator>(const const_iterator& a, const const_iterator& b) { return a.i_ > b.i_; }
    friend bool operator<=(const const_iterator& a, const const_iterator& b) {
      return a.i_ <= b.i_;
    }
    friend bool operator>=(const const_iterator& a, const const_iterator& b) {
      return a.i_ >= b.i_;
    }

   private:
    const NameColumn* column_ = nullptr;
    size_t i_ = 0;
  };
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, ids_.size()}; }

  /// Equal values atom by atom (however each side numbered its distinct values).
  friend bool operator==(const NameColumn& a, const NameColumn& b);
  friend bool operator==(const NameColumn& a, const std::vector<std::string>& b);
  friend bool operator!=(const NameColumn& a, const NameColumn& b) { return !(a == b); }

 private:
  Id intern(std::string_view value);

  std::vector<std::string> distinct_;
  std::vector<Id> ids_;
  // Lookup for intern(); built on demand, so a column made from ids costs no hash table.
  std::unordered_map<std::string, Id> index_;
};

}  // namespace pairhist::analysis
