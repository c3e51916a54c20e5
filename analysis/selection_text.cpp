#include "analysis/selection_text.hpp"

#include <algorithm>
#include <cctype>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/selection_keywords.hpp"
#include "pairhist/errors.hpp"

namespace pairhist::analysis {

std::vector<std::string> tokenize_selection(const std::string& text) {
  std::vector<std::string> tokens;
  std::string current;
  auto flush = [&] {
    if (!current.empty()) tokens.push_back(current);
    current.clear();
  };
  for (char c : text) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      flush();
    } else if (c == '(' || c == ')') {
      flush();
      tokens.emplace_back(1, c);
    } else {
      current += c;
    }
  }
  flush();
  return tokens;
}

std::string joined_lists(const std::string& selection) {
  std::string out;
  for (size_t i = 0; i < selection.size(); ++i) {
    const char c = selection[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      const size_t next = selection.find_first_not_of(" \t\r\n\f\v", i);
      if ((!out.empty() && out.back() == ',') ||
          (next != std::string::npos && selection[next] == ','))
        continue;
    }
    out += c;
  }
  return out;
}

bool is_name_list(const std::string& selection) {
  const auto tokens = tokenize_selection(joined_lists(selection));
  return tokens.size() == 1 && !is_keyword(tokens[0]) && tokens[0] != "(" && tokens[0] != ")";
}

namespace {

bool is_number_range(const std::string& item) {
  const size_t dash = item.find('-', 1);
  const std::string lo = item.substr(0, dash);
  const std::string hi = dash == std::string::npos ? "1" : item.substr(dash + 1);
  auto digits = [](const std::string& s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
      return std::isdigit(static_cast<unsigned char>(c));
    });
  };
  return digits(lo) && digits(hi);
}

// One part of a mask ("1-13,WAT" after ':', "CA,H*" or "%CT" after '@') as an expression: numbers
// and ranges by `numbers`, names by `names`, %TYPE by type; "" for an empty item.
std::string mask_part(const std::string& list, const char* numbers, const char* names) {
  std::string expr;
  std::stringstream in(list);
  for (std::string item; std::getline(in, item, ',');) {
    if (item.empty()) return "";
    std::string term;
    if (is_number_range(item))
      term = std::string(numbers) + " " + item;
    else if (item[0] == '%' && item.size() > 1)
      term = "type " + item.substr(1);
    else
      term = std::string(names) + " " + item;
    expr += (expr.empty() ? "" : " or ") + term;
  }
  return expr.empty() ? "" : "(" + expr + ")";
}

}  // namespace

namespace {

// A cpptraj mask read by recursive descent: '!' binds tightest, then '&', then '|' (cpptraj's
// order); parentheses group. Each operand is `:RES`, `@ATOM`, `:RES@ATOM` or `*`.
class MaskTranslator {
 public:
  explicit MaskTranslator(const std::string& mask) : mask_(mask) {}

  std::string translate() {
    std::string e = alternatives();
    if (i_ < mask_.size()) fail(mask_[i_] == ')' ? "a ')' without its '('" : "unexpected text");
    return e;
  }

 private:
  static bool is_operator(char c) {
    return c == '&' || c == '|' || c == '!' || c == '(' || c == ')';
  }

  [[noreturn]] void fail(const std::string& problem) const {
    throw UsageError("selection '" + excerpt(mask_) + "': cpptraj mask: " + problem + " at '" +
                     excerpt(mask_.substr(std::min(i_, mask_.size()))) + "'");
  }

  char peek() const { return i_ < mask_.size() ? mask_[i_] : '\0'; }

  std::string alternatives() {
    std::string e = conjunction();
    while (peek() == '|') {
      ++i_;
      e += " or " + conjunction();
    }
    return e;
  }

  std::string conjunction() {
    std::string e = operand();
    while (peek() == '&') {
      ++i_;
      e += " and " + operand();
    }
    return e;
  }

  std::string operand() {
    if (peek() == '!') {
      ++i_;
      return "not " + operand();
    }
    if (peek() == '(') {
      ++i_;
      std::string e = alternatives();
      if (peek() != ')') fail("missing ')'");
      ++i_;
      return "(" + e + ")";
    }
    return atoms();
  }

  // The text of one list (after ':' or '@'), up to an operator or `stop`.
  std::string list(char stop) {
    const size_t begin = i_;
    while (i_ < mask_.size() && !is_operator(mask_[i_]) && mask_[i_] != stop) {
      const char c = mask_[i_];
      if (c == '<' || c == '>')
        fail("distance masks ('<:', '>@', ...) are not supported: use 'within R of SEL'");
      if (c == '^') fail("molecule masks ('^') are not supported: use 'resname' or 'resid'");
      if (c == '/' || c == '=')
        fail(std::string("'") + c + "' is not supported (element masks: use 'element X')");
      ++i_;
    }
    return mask_.substr(begin, i_ - begin);
  }

  std::string atoms() {
    if (peek() == '^' || peek() == '<' || peek() == '>') list('\0');  // fails, naming it
    if (peek() == '*') {
      ++i_;
      return "all";
    }
    std::string e;
    if (peek() == ':') {
      ++i_;
      e = mask_part(list('@'), "resid", "resname");
      if (e.empty()) fail("an empty residue list after ':'");
    }
    if (peek() == '@') {
      ++i_;
      const std::string a = mask_part(list('@'), "index", "name");
      if (a.empty()) fail("an empty atom list after '@'");
      if (peek() == '@') fail("a second '@'");
      e += (e.empty() ? "" : " and ") + a;
    }
    if (e.empty()) fail(i_ < mask_.size() ? "':RES' or '@ATOM' expected" : "the mask ends early");
    return "(" + e + ")";
  }

  const std::string& mask_;
  size_t i_ = 0;
};

}  // namespace

std::string mask_expression(const std::string& selection) {
  const size_t b = selection.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  const size_t e = selection.find_last_not_of(" \t\r\n");
  const std::string mask = selection.substr(b, e - b + 1);
  // A mask is one word (cpptraj takes it as one argument) that starts as one does and names
  // residues or atoms.
  if (mask.find_first_of(" \t\r\n") != std::string::npos) return "";
  if (std::string(":@!(*^").find(mask[0]) == std::string::npos) return "";
  if (mask.find_first_of(":@") == std::string::npos) return "";
  return MaskTranslator(mask).translate();
}

std::string as_expression(const std::string& selection) {
  if (std::string mask = mask_expression(selection); !mask.empty()) return mask;
  if (!is_name_list(selection)) return selection;
  std::string expr = "name";
  std::stringstream in(selection);
  for (std::string item; std::getline(in, item, ',');) {
    const auto b = item.find_first_not_of(" \t");
    const auto e = item.find_last_not_of(" \t");
    if (b != std::string::npos) expr += " " + item.substr(b, e - b + 1);
  }
  return expr;
}

}  // namespace pairhist::analysis
