#include "analysis/selection_text.hpp"

#include <algorithm>
#include <cctype>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/selection_keywords.hpp"

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

std::string mask_expression(const std::string& selection) {
  const auto tokens = tokenize_selection(selection);
  if (tokens.size() != 1 || (tokens[0][0] != ':' && tokens[0][0] != '@')) return "";
  const std::string& mask = tokens[0];
  const size_t at = mask.find('@');
  std::string expr;
  if (mask[0] == ':') {
    expr = mask_part(mask.substr(1, at == std::string::npos ? std::string::npos : at - 1), "resid",
                     "resname");
    if (expr.empty()) return "";
  }
  if (at != std::string::npos) {
    const std::string atoms = mask_part(mask.substr(at + 1), "index", "name");
    if (atoms.empty() || mask.find('@', at + 1) != std::string::npos) return "";
    expr += (expr.empty() ? "" : " and ") + atoms;
  }
  return expr;
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
