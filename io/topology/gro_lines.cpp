#include "io/topology/gro_lines.hpp"

#include <cerrno>
#include <cstdlib>
#include <vector>

namespace pairhist::io::gro {

bool parse_float_slow(std::string_view field, float& out) {
  double value = 0;
#if defined(__cpp_lib_to_chars) && __cpp_lib_to_chars >= 201611L
  const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
  if (ec != std::errc() || end != field.data() + field.size()) return false;
#else
  // Fallback for standard libraries without floating-point from_chars.
  char buf[64];
  if (field.size() >= sizeof buf) return false;
  std::memcpy(buf, field.data(), field.size());
  buf[field.size()] = '\0';
  char* end = nullptr;
  errno = 0;
  value = std::strtod(buf, &end);
  if (end != buf + field.size() || errno == ERANGE) return false;
#endif
  out = static_cast<float>(value);
  return std::isfinite(out);
}

std::string field_width(std::string_view line, size_t& width) {
  const auto p1 = line.find('.', kCoordColumn);
  const auto p2 = p1 == std::string_view::npos ? p1 : line.find('.', p1 + 1);
  if (p2 == std::string_view::npos)
    return "cannot find the decimal points of the coordinates in the first atom line";
  width = p2 - p1;
  if (width < 4 || width > 32) return "implausible coordinate field width " + std::to_string(width);
  return {};
}

std::string check_atom_line_length(std::string_view line, size_t width) {
  const size_t need = kCoordColumn + 3 * width;
  if (line.size() >= need) return {};
  return "atom line too short (" + std::to_string(line.size()) + " characters, need " +
         std::to_string(need) + ")";
}

std::string parse_box(std::string_view line, std::array<float, 9>& box) {
  std::vector<float> values;
  std::string_view rest(line);
  while (true) {
    const auto start = rest.find_first_not_of(" \t");
    if (start == std::string_view::npos) break;
    rest.remove_prefix(start);
    const auto len = std::min(rest.find_first_of(" \t"), rest.size());
    float v = 0;
    if (!parse_float(rest.substr(0, len), v))
      return "bad box line '" + excerpt(line) + "' (atom count in line 2 too small?)";
    values.push_back(v);
    rest.remove_prefix(len);
  }
  if (values.size() != 3 && values.size() != 9)
    return "box line must hold 3 or 9 numbers, found " + std::to_string(values.size());
  box = {};
  box[0] = values[0];
  box[4] = values[1];
  box[8] = values[2];
  if (values.size() == 9) {
    box[1] = values[3];
    box[2] = values[4];
    box[3] = values[5];
    box[5] = values[6];
    box[6] = values[7];
    box[7] = values[8];
  }
  return {};
}

void parse_title_time(std::string_view title, double& time, bool& has_time, int64_t& step) {
  // GROMACS appends "t= <ps> step= <n>" to the title of each frame it writes.
  const std::string line(title);
  const size_t t = line.find("t=");
  if (t == std::string::npos || (t > 0 && !is_blank(line[t - 1]))) return;
  char* end = nullptr;
  const double v = std::strtod(line.c_str() + t + 2, &end);
  if (end != line.c_str() + t + 2 && std::isfinite(v)) {
    time = v;
    has_time = true;
  }
  const size_t s = line.find("step=", t);
  if (s != std::string::npos) {
    const long long n = std::strtoll(line.c_str() + s + 5, &end, 10);
    if (end != line.c_str() + s + 5) step = n;
  }
}

}  // namespace pairhist::io::gro
