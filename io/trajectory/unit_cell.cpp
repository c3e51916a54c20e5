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

std::string box_from_shape_matrix(const double h[6], std::array<double, 9>& box,
                                  std::array<double, 9>& rotation) {
  const double e[3][3] = {{h[0], h[1], h[3]}, {h[1], h[2], h[4]}, {h[3], h[4], h[5]}};
  auto dot = [](const double* u, const double* v) {
    return u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
  };
  const double len0 = std::sqrt(dot(e[0], e[0]));
  if (!(len0 > 0)) return "degenerate unit cell (a shape matrix edge of length zero)";
  // Gram-Schmidt: q1 along a, q2 along b's part normal to a, q3 = q1 x q2.
  double q[3][3];
  for (int k = 0; k < 3; ++k) q[0][k] = e[0][k] / len0;
  const double along = dot(e[1], q[0]);
  for (int k = 0; k < 3; ++k) q[1][k] = e[1][k] - along * q[0][k];
  const double normal = std::sqrt(dot(q[1], q[1]));
  if (!(normal > 1e-6 * std::sqrt(dot(e[1], e[1]))))
    return "degenerate unit cell (the shape matrix's first two edges are parallel)";
  for (int k = 0; k < 3; ++k) q[1][k] /= normal;
  q[2][0] = q[0][1] * q[1][2] - q[0][2] * q[1][1];
  q[2][1] = q[0][2] * q[1][0] - q[0][0] * q[1][2];
  q[2][2] = q[0][0] * q[1][1] - q[0][1] * q[1][0];
  if (!(dot(e[2], q[2]) > 1e-6 * std::sqrt(dot(e[2], e[2]))))
    return "degenerate unit cell (the shape matrix's edges are coplanar or left-handed)";
  box = {len0, 0.0, 0.0, along, normal, 0.0, dot(e[2], q[0]), dot(e[2], q[1]), dot(e[2], q[2])};
  for (int r = 0; r < 3; ++r)
    for (int k = 0; k < 3; ++k) rotation[static_cast<size_t>(3 * r + k)] = q[r][k];
  return "";
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
