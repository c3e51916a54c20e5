#include "analysis/sphere_cut.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <utility>

#include "pairhist/errors.hpp"
#include "pairhist/geometry.hpp"

namespace pairhist::analysis {
namespace {

std::string length_text(double v, const std::string& unit) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g %s", v, unit == "angstrom" ? "A" : unit.c_str());
  return buf;
}

bool finite_atom(const float* xyz, int atom) {
  const float* p = xyz + 3 * static_cast<size_t>(atom);
  return std::isfinite(p[0]) && std::isfinite(p[1]) && std::isfinite(p[2]);
}

}  // namespace

SphereOption parse_sphere_option(const std::string& text) {
  const size_t comma = text.rfind(',');
  SphereOption o;
  if (comma != std::string::npos) o.selection = text.substr(0, comma);
  const std::string radius = comma == std::string::npos ? text : text.substr(comma + 1);
  char* end = nullptr;
  o.radius = std::strtod(radius.c_str(), &end);
  if (comma != std::string::npos && o.selection.find_first_not_of(" \t") == std::string::npos)
    throw UsageError("--sphere '" + text + "': the selection is empty");
  const bool number = !radius.empty() && end != nullptr && *end == '\0';
  if (comma == std::string::npos && !number)
    throw UsageError("--sphere '" + text +
                     "': expected SELECTION,R (or R alone with --sphere-centre box or X,Y,Z)");
  if (!number || !std::isfinite(o.radius) || !(o.radius > 0))
    throw UsageError("--sphere '" + text + "': the radius '" + radius +
                     "' is not a positive number");
  return o;
}

SphereCentre parse_sphere_centre(const std::string& text) {
  SphereCentre c;
  if (text.empty()) return c;
  if (text == "mass")
    c.kind = SphereCentreKind::mass;
  else if (text == "geometry")
    c.kind = SphereCentreKind::geometry;
  else if (text == "box")
    c.kind = SphereCentreKind::box;
  if (c.kind != SphereCentreKind::automatic) return c;
  c.kind = SphereCentreKind::point;
  size_t at = 0;
  for (int i = 0; i < 3; ++i) {
    const size_t comma = text.find(',', at);
    const std::string item = text.substr(at, comma == std::string::npos ? comma : comma - at);
    char* end = nullptr;
    c.point[i] = std::strtod(item.c_str(), &end);
    if (item.empty() || end == nullptr || *end != '\0' || !std::isfinite(c.point[i]) ||
        (i < 2) != (comma != std::string::npos))
      throw UsageError("--sphere-centre '" + text +
                       "': expected mass, geometry, box or a point X,Y,Z (the run's --units)");
    at = comma + 1;
  }
  return c;
}

SphereCut::SphereCut(std::vector<int> solute, std::vector<double> masses, double radius_nm)
    : solute_(std::move(solute)), masses_(std::move(masses)), radius_(radius_nm) {}

SphereCut::SphereCut(const double point_nm[3], bool box_centre, double radius_nm)
    : point_{point_nm[0], point_nm[1], point_nm[2]}, box_centre_(box_centre), radius_(radius_nm) {}

void SphereCut::set_centre_bins(double width_nm, int nbins) {
  centre_width_ = width_nm;
  centre_nbins_ = nbins;
}

std::string SphereCut::solute_centre(const float* xyz, const std::function<void(double*)>& nearest,
                                     double* centre) const {
  // The solute made whole along its selection's order, then its centre.
  auto finite = [&](int atom) { return finite_atom(xyz, atom); };
  if (!finite(solute_[0]))
    return "atom " + std::to_string(solute_[0] + 1) + " has a non-finite coordinate";
  const float* p = xyz + 3 * static_cast<size_t>(solute_[0]);
  const double ref[3] = {p[0], p[1], p[2]};
  double previous[3] = {ref[0], ref[1], ref[2]}, sum[3] = {0, 0, 0};
  double weight = mass_weighted() ? masses_[0] : 1.0;
  for (size_t m = 1; m < solute_.size(); ++m) {
    if (!finite(solute_[m]))
      return "atom " + std::to_string(solute_[m] + 1) + " has a non-finite coordinate";
    p = xyz + 3 * static_cast<size_t>(solute_[m]);
    double d[3] = {p[0] - previous[0], p[1] - previous[1], p[2] - previous[2]};
    nearest(d);
    const double w = mass_weighted() ? masses_[m] : 1.0;
    for (int c = 0; c < 3; ++c) {
      previous[c] += d[c];
      sum[c] += w * (previous[c] - ref[c]);
    }
    weight += w;
  }
  for (int c = 0; c < 3; ++c) centre[c] = ref[c] + sum[c] / weight;
  return "";
}

std::string SphereCut::cut(const float* xyz, const BoxMatrix& box,
                           const std::vector<std::vector<int>>& species, const std::string& unit,
                           double factor, SphereFrame& out) const {
  const BoxKind kind = classify_box(box);
  if (kind != BoxKind::none && !rmax_fits_minimum_image(radius_, box))
    return "sphere radius " + length_text(radius_ * factor, unit) +
           " exceeds half the shortest box vector (" +
           length_text(max_minimum_image_rmax(box) * factor, unit) +
           "): the sphere would hold an atom twice";
  Box<double> cell;
  cell.ax = box[0], cell.bx = box[3], cell.by = box[4];
  cell.cx = box[6], cell.cy = box[7], cell.cz = box[8];
  if (kind != BoxKind::none) {
    cell.inv_ax = 1 / cell.ax, cell.inv_by = 1 / cell.by, cell.inv_cz = 1 / cell.cz;
  }
  // The image nearest no atom can be more than one lattice vector beyond the reduced brick:
  // those within R of it are searched (exact for d <= R, which is all that matters here).
  std::vector<std::array<double, 3>> images;
  if (kind == BoxKind::triclinic) images = triclinic_images(box, radius_);
  auto nearest = [&](double* d) {
    if (kind == BoxKind::orthorhombic) {
      wrap_orthorhombic(cell, d[0], d[1], d[2]);
    } else if (kind == BoxKind::triclinic) {
      reduce_triclinic(cell, d[0], d[1], d[2]);
      double best = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
      std::array<double, 3> shift{0, 0, 0};
      for (const auto& l : images) {
        const double e[3] = {d[0] + l[0], d[1] + l[1], d[2] + l[2]};
        const double e2 = e[0] * e[0] + e[1] * e[1] + e[2] * e[2];
        if (e2 < best) best = e2, shift = l;
      }
      for (int c = 0; c < 3; ++c) d[c] += shift[c];
    }
  };
  auto finite = [&](int atom) { return finite_atom(xyz, atom); };

  if (box_centre_) {
    if (kind == BoxKind::none) return "the frame has no box, and --sphere-centre box needs one";
    for (int c = 0; c < 3; ++c) out.centre[c] = (box[c] + box[3 + c] + box[6 + c]) / 2;
  } else if (solute_.empty()) {
    for (int c = 0; c < 3; ++c) out.centre[c] = point_[c];
  } else if (const std::string problem = solute_centre(xyz, nearest, out.centre);
             !problem.empty()) {
    return problem;
  }

  // Every species' atoms at their image nearest the centre; those within R are kept.
  const double r2 = radius_ * radius_;
  out.xyz.clear();
  out.atoms.assign(species.size(), {});
  out.counts.assign(species.size(), 0);
  out.centre_counts.assign(centre_nbins_ > 0 ? species.size() : 0,
                           std::vector<uint64_t>(static_cast<size_t>(centre_nbins_), 0));
  int inside = 0;
  for (size_t s = 0; s < species.size(); ++s) {
    for (int atom : species[s]) {
      if (!finite(atom)) return "atom " + std::to_string(atom + 1) + " has a non-finite coordinate";
      const float* p = xyz + 3 * static_cast<size_t>(atom);
      double d[3] = {p[0] - out.centre[0], p[1] - out.centre[1], p[2] - out.centre[2]};
      nearest(d);
      const double d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
      if (d2 > r2) continue;
      if (centre_nbins_ > 0) {
        const auto bin = static_cast<int>(std::sqrt(d2) / centre_width_);
        ++out.centre_counts[s][static_cast<size_t>(std::min(bin, centre_nbins_ - 1))];
      }
      for (int c = 0; c < 3; ++c) out.xyz.push_back(static_cast<float>(d[c]));
      out.atoms[s].push_back(inside++);
    }
    out.counts[s] = static_cast<int64_t>(out.atoms[s].size());
  }
  if (inside == 0) {
    char at[96];
    std::snprintf(at, sizeof at, "(%.4g, %.4g, %.4g)", out.centre[0] * factor,
                  out.centre[1] * factor, out.centre[2] * factor);
    return "the sphere of radius " + length_text(radius_ * factor, unit) + " around " + at +
           " holds no atom of the run's species";
  }
  return "";
}

}  // namespace pairhist::analysis
