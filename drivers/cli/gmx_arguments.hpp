// Command lines in GROMACS's style (`pairhist rdf`, gmx rdf's interface): options are one dash
// and a whole word (-ref, -sel, -rmax), booleans -excl / -noexcl, and an option may take several
// values (-sel "name OW" "name HW1"). CLI11 reads "-sel" as "-s el", hence this small reader.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace pairhist {

struct GmxOption {
  enum Kind { value, values, boolean };
  std::string name;  // without the dash
  Kind kind;
  std::string help;
};

class GmxArguments {
 public:
  /// Reads `args` (the words after the command name) against `known`. Every problem (an unknown
  /// option, a missing value, a word that belongs to no option, an option given twice, -b 1 -b 2
  /// or -excl -noexcl, as gmx refuses them) is one line of the UsageError.
  GmxArguments(const std::vector<GmxOption>& known, const std::vector<std::string>& args);

  bool given(const std::string& name) const { return values_.count(name) != 0; }
  /// The option's value, or `fallback`.
  std::string value(const std::string& name, const std::string& fallback = "") const;
  /// Every value given to the option, in order.
  std::vector<std::string> values(const std::string& name) const;
  /// A boolean option: -name (true), -noname (false), or `fallback`.
  bool flag(const std::string& name, bool fallback) const;

 private:
  std::map<std::string, std::vector<std::string>> values_;
};

/// The options' help, one line each, for -h.
std::string gmx_options_help(const std::vector<GmxOption>& known);

}  // namespace pairhist
