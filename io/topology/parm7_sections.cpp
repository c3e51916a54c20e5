#include "io/topology/parm7_sections.hpp"

#include <cctype>
#include <sstream>

#include "io/common/text_lines.hpp"
#include "pairhist/errors.hpp"

namespace pairhist::io {
namespace {

using text::fail_at_line;
using text::trim;

struct FieldFormat {
  size_t per_line = 0, width = 0;
  char kind = 0;
};

// A Fortran edit descriptor list of one repeated item: "(20a4)", "(5E16.8)", "(10I8)",
// "(1a80)", "(a80)", "(3I8)". Returns false for anything else.
bool parse_format(const std::string& text, FieldFormat& f) {
  std::string s;
  for (char c : text)
    if (!std::isspace(static_cast<unsigned char>(c))) s += c;
  if (s.size() < 4 || s.front() != '(' || s.back() != ')') return false;
  size_t i = 1;
  size_t repeat = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])) && repeat < 100000)
    repeat = repeat * 10 + static_cast<size_t>(s[i++] - '0');
  if (i == s.size()) return false;
  const char letter = static_cast<char>(std::tolower(static_cast<unsigned char>(s[i++])));
  if (letter == 'a') {
    f.kind = 'a';
  } else if (letter == 'i') {
    f.kind = 'i';
  } else if (letter == 'e' || letter == 'f' || letter == 'd' || letter == 'g') {
    f.kind = 'e';
  } else {
    return false;
  }
  size_t width = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])) && width < 100000)
    width = width * 10 + static_cast<size_t>(s[i++] - '0');
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
  }
  if (i != s.size() - 1 || width == 0 || width > 1000) return false;
  f.per_line = repeat == 0 ? 1 : repeat;
  f.width = width;
  return true;
}

// The fixed-width fields of one data line (numbers may touch: "10I8" with values >= 1e7).
void split_fields(const std::string& line, const FieldFormat& f, std::vector<std::string>& out) {
  for (size_t k = 0; k < f.per_line && k * f.width < line.size(); ++k) {
    std::string field = line.substr(k * f.width, f.width);
    if (f.kind != 'a' && trim(field).empty()) break;  // a short last line
    out.push_back(f.kind == 'a' ? trim(field) : field);
  }
}

}  // namespace

std::vector<Parm7Section> parse_parm7_sections(const std::string& text, const std::string& path) {
  std::vector<Parm7Section> sections;
  std::istringstream in(text);
  std::string line;
  long long line_no = 0;
  FieldFormat format;
  bool want_format = false, any_directive = false;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find('\0') != std::string::npos)
      fail_at_line(path, line_no, "binary data, not a parm7 file");
    if (line.rfind("%FLAG", 0) == 0) {
      if (want_format)
        fail_at_line(path, line_no, "%FLAG " + sections.back().flag + " has no %FORMAT line");
      Parm7Section s;
      s.flag = trim(line.substr(5));
      s.line = line_no;
      if (s.flag.empty()) fail_at_line(path, line_no, "%FLAG without a name");
      sections.push_back(std::move(s));
      want_format = any_directive = true;
      continue;
    }
    if (line.rfind("%FORMAT", 0) == 0) {
      if (!want_format) fail_at_line(path, line_no, "%FORMAT outside a %FLAG section");
      if (!parse_format(line.substr(7), format))
        fail_at_line(path, line_no,
                     "%FLAG " + sections.back().flag + ": unsupported %FORMAT '" +
                         excerpt(trim(line.substr(7))) + "'");
      sections.back().kind = format.kind;
      want_format = false;
      continue;
    }
    if (line.rfind("%VERSION", 0) == 0 || line.rfind("%COMMENT", 0) == 0) {
      any_directive = true;
      continue;
    }
    if (!line.empty() && line[0] == '%')
      fail_at_line(path, line_no, "unknown directive '" + excerpt(line) + "'");
    if (sections.empty()) {
      if (trim(line).empty()) continue;
      fail_at_line(path, line_no,
                   any_directive ? "data before the first %FLAG"
                                 : "not a parm7 topology (no %VERSION or %FLAG line; the old "
                                   "format without %FLAG sections is not supported)");
    }
    if (want_format)
      fail_at_line(path, line_no, "%FLAG " + sections.back().flag + " has no %FORMAT line");
    split_fields(line, format, sections.back().values);
  }
  if (want_format)
    fail_at_line(path, line_no, "%FLAG " + sections.back().flag + " has no %FORMAT line");
  if (sections.empty()) throw InputError(path + ": empty file, not a parm7 topology");
  return sections;
}

}  // namespace pairhist::io
