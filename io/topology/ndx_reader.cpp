#include "io/topology/ndx_reader.hpp"

#include <fstream>

#include "io/common/input_path.hpp"
#include "io/common/text_lines.hpp"
#include "pairhist/errors.hpp"

namespace pairhist::io {

IndexGroups read_ndx(const std::string& path, int natoms) {
  require_input_file(path);
  std::ifstream in(path);
  if (!in) throw InputError(path + ": cannot open the index file");
  IndexGroups groups;
  groups.path = path;
  std::string line;
  std::vector<std::string> tokens;
  int64_t line_no = 0;
  bool had_newline = true;
  auto fail = [&](const std::string& problem) {
    throw InputError(path + ": line " + std::to_string(line_no) + ": " + problem);
  };
  for (;;) {
    const auto status = text::read_line(in, line, line_no, had_newline);
    if (status == text::LineStatus::end) break;
    if (status == text::LineStatus::read_error) fail("read error");
    if (status == text::LineStatus::binary) fail("not a text file (NUL byte)");
    text::split_ws(line, tokens);
    if (tokens.empty()) continue;
    if (tokens.front().front() == '[') {
      // "[ name ]"; gmx writes spaces inside the brackets, "[name]" is accepted too.
      const auto open = line.find('[');
      const auto close = line.find(']', open);
      if (close == std::string::npos ||
          line.find_first_not_of(" \t", close + 1) != std::string::npos)
        fail("malformed group header '" + excerpt(line) + "' (expected [ name ])");
      std::vector<std::string> name;
      text::split_ws(line.substr(open + 1, close - open - 1), name);
      if (name.size() != 1)
        fail("malformed group header '" + excerpt(line) + "' (expected one name)");
      groups.names.push_back(name[0]);
      groups.atoms.emplace_back();
      continue;
    }
    if (groups.names.empty()) fail("atom numbers before the first [ group ] header");
    for (const auto& t : tokens) {
      long long v = 0;
      if (!text::parse_int(t, v)) fail("'" + excerpt(t) + "' is not an atom number");
      if (v < 1 || v > natoms)
        fail("atom number " + t + " is outside the topology's 1-" + std::to_string(natoms));
      groups.atoms.back().push_back(static_cast<int>(v - 1));
    }
  }
  if (groups.names.empty()) throw InputError(path + ": no [ group ] in the index file");
  return groups;
}

}  // namespace pairhist::io
