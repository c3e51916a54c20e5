#include "analysis/selection_text.hpp"

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

std::string as_expression(const std::string& selection) {
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
