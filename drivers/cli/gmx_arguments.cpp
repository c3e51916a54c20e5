#include "drivers/cli/gmx_arguments.hpp"

#include <algorithm>
#include <cctype>

#include "pairhist/errors.hpp"

namespace pairhist {
namespace {

/// "-word" or "--word" (not a negative number): the option's name, else "".
std::string option_name(const std::string& word) {
  size_t dashes = 0;
  while (dashes < word.size() && dashes < 2 && word[dashes] == '-') ++dashes;
  if (dashes == 0 || dashes == word.size() ||
      !std::isalpha(static_cast<unsigned char>(word[dashes])))
    return "";
  return word.substr(dashes);
}

}  // namespace

GmxArguments::GmxArguments(const std::vector<GmxOption>& known,
                           const std::vector<std::string>& args) {
  std::vector<std::string> problems;
  auto find = [&](const std::string& name) -> const GmxOption* {
    for (const auto& o : known)
      if (o.name == name) return &o;
    return nullptr;
  };
  for (size_t i = 0; i < args.size();) {
    const std::string name = option_name(args[i]);
    if (name.empty()) {
      problems.push_back("'" + excerpt(args[i]) + "' belongs to no option");
      ++i;
      continue;
    }
    const GmxOption* option = find(name);
    bool negated = false;
    if (!option && name.rfind("no", 0) == 0) {
      option = find(name.substr(2));
      negated = option && option->kind == GmxOption::boolean;
      if (!negated) option = nullptr;
    }
    ++i;
    if (!option) {
      problems.push_back("unknown option -" + excerpt(name) + " (-h lists the options)");
      continue;
    }
    // As gmx: "Option specified multiple times" (before, the last value won).
    const std::string repeated = "-" + option->name + " was given more than once: give it once";
    if (values_.count(option->name) != 0 &&
        std::find(problems.begin(), problems.end(), repeated) == problems.end())
      problems.push_back(repeated);
    std::vector<std::string>& stored = values_[option->name];
    if (option->kind == GmxOption::boolean) {
      stored.assign(1, negated ? "no" : "yes");
    } else if (option->kind == GmxOption::value) {
      if (i >= args.size()) {
        problems.push_back("-" + option->name + " needs a value");
        values_.erase(option->name);
        continue;
      }
      stored.assign(1, args[i++]);
    } else {
      const size_t before = stored.size();
      while (i < args.size() && option_name(args[i]).empty()) stored.push_back(args[i++]);
      if (stored.size() == before) problems.push_back("-" + option->name + " needs a value");
    }
  }
  if (!problems.empty()) {
    std::string text;
    for (const auto& p : problems) text += (text.empty() ? "" : "\n") + p;
    throw UsageError(text);
  }
}

std::string GmxArguments::value(const std::string& name, const std::string& fallback) const {
  const auto it = values_.find(name);
  return it == values_.end() || it->second.empty() ? fallback : it->second.back();
}

std::vector<std::string> GmxArguments::values(const std::string& name) const {
  const auto it = values_.find(name);
  return it == values_.end() ? std::vector<std::string>{} : it->second;
}

bool GmxArguments::flag(const std::string& name, bool fallback) const {
  const auto it = values_.find(name);
  return it == values_.end() ? fallback : it->second.back() == "yes";
}

std::string gmx_options_help(const std::vector<GmxOption>& known) {
  std::string text;
  for (const auto& o : known) {
    std::string left = "  -" + std::string(o.kind == GmxOption::boolean ? "[no]" : "") + o.name;
    if (o.kind == GmxOption::value) left += " X";
    if (o.kind == GmxOption::values) left += " X [X ...]";
    if (left.size() < 22) left.resize(22, ' ');
    text += left + " " + o.help + "\n";
  }
  return text;
}

}  // namespace pairhist
