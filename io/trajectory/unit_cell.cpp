#include "io/trajectory/unit_cell.hpp"

#include <cmath>

namespace pairhist::io {

namespace {
constexpr double kPi = 3.14159265358979323846;
}

double cos_degrees(double degrees) {
  if (degrees == 90.0) return 0.0;
  return std::cos(degrees * kPi / 180.0);
}

std::string box_from_cell(double a, double b, double c, double cos_alpha, double cos_beta,
                          double cos_gamma, std::array<double, 9>& box) {
  const double sin_gamma = std::sqrt(1 - cos_gamma * cos_gamma);
  if (!(sin_gamma > 1e-6)) return "degenerate unit cell (gamma is 0 or 180 degrees)";
  const double cx = c * cos_beta;
  const double cy = c * (cos_alpha - cos_beta * cos_gamma) / sin_gamma;
  const double cz2 = c * c - cx * cx - cy * cy;
  if (!(cz2 > 0)) return "degenerate unit cell (angles do not form a cell)";
  box = {a, 0.0, 0.0, b * cos_gamma, b * sin_gamma, 0.0, cx, cy, std::sqrt(cz2)};
  return "";
}

std::string box_from_shape_matrix(const double h[6], std::array<double, 9>& box) {
  const double e[3][3] = {{h[0], h[1], h[3]}, {h[1], h[2], h[4]}, {h[3], h[4], h[5]}};
  double len[3];
  for (int v = 0; v < 3; ++v)
    len[v] = std::sqrt(e[v][0] * e[v][0] + e[v][1] * e[v][1] + e[v][2] * e[v][2]);
  if (!(len[0] > 0 && len[1] > 0 && len[2] > 0))
    return "degenerate unit cell (a shape matrix edge of length zero)";
  auto cosine = [&](int u, int v) {
    const double dot = e[u][0] * e[v][0] + e[u][1] * e[v][1] + e[u][2] * e[v][2];
    return dot == 0 ? 0.0 : dot / (len[u] * len[v]);  // exactly 90 degrees stays exact
  };
  return box_from_cell(len[0], len[1], len[2], cosine(1, 2), cosine(0, 2), cosine(0, 1), box);
}

std::array<double, 6> cell_from_box(const std::array<double, 9>& m) {
  double len[3];
  for (int v = 0; v < 3; ++v)
    len[v] =
        std::sqrt(m[3 * v] * m[3 * v] + m[3 * v + 1] * m[3 * v + 1] + m[3 * v + 2] * m[3 * v + 2]);
  auto angle = [&](int u, int v) {
    if (len[u] == 0 || len[v] == 0) return 0.0;
    const double dot =
        m[3 * u] * m[3 * v] + m[3 * u + 1] * m[3 * v + 1] + m[3 * u + 2] * m[3 * v + 2];
    if (dot == 0) return 90.0;
    return std::acos(dot / (len[u] * len[v])) * 180.0 / kPi;
  };
  return {len[0], len[1], len[2], angle(1, 2), angle(0, 2), angle(0, 1)};
}

}  // namespace pairhist::io
