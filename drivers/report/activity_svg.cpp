#include "drivers/report/activity_svg.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace pairhist {
namespace {

std::string escape_xml(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

/// A round tick step giving about five ticks over `span`.
double tick_step(double span) {
  const double raw = span / 5;
  const double decade = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0})
    if (m * decade >= raw) return m * decade;
  return 10 * decade;
}

}  // namespace

std::string activity_svg(const RunActivity& a, const std::string& title) {
  constexpr int kLabel = 190, kWidth = 1000, kLane = 16, kTop = 40, kBottom = 40;
  const int lanes = static_cast<int>(a.workers.size());
  const int height = kTop + lanes * kLane + kBottom;
  double span = std::max(a.makespan_seconds, a.lp_bound_seconds);
  if (!(span > 0)) span = 1;
  const double px = (kWidth - kLabel - 20) / span;
  std::ostringstream s;
  s.precision(6);
  s << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kWidth << "\" height=\"" << height
    << "\" font-family=\"sans-serif\" font-size=\"11\">\n";
  s << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  s << "<text x=\"" << kLabel << "\" y=\"20\" font-size=\"13\">" << escape_xml(title)
    << "</text>\n";
  std::vector<int> lane_of;
  for (int i = 0; i < lanes; ++i) {
    const auto& w = a.workers[static_cast<size_t>(i)];
    if (static_cast<size_t>(w.id) >= lane_of.size())
      lane_of.resize(static_cast<size_t>(w.id) + 1, -1);
    lane_of[static_cast<size_t>(w.id)] = i;
    const int y = kTop + i * kLane;
    s << "<text x=\"4\" y=\"" << y + kLane - 4 << "\">" << escape_xml(w.name) << "</text>\n";
    s << "<rect x=\"" << kLabel << "\" y=\"" << y + 1 << "\" width=\"" << span * px
      << "\" height=\"" << kLane - 2 << "\" fill=\"#f2f2f2\"/>\n";
  }
  for (const TaskSpan& t : a.timeline) {
    if (t.worker < 0 || static_cast<size_t>(t.worker) >= lane_of.size()) continue;
    const int lane = lane_of[static_cast<size_t>(t.worker)];
    if (lane < 0) continue;
    const bool cuda = a.workers[static_cast<size_t>(lane)].is_cuda;
    const char* fill =
        cuda ? (t.grouped ? "#7fb86f" : "#2e7d32") : (t.grouped ? "#8fb3e0" : "#1f5fae");
    const double x = kLabel + t.start * px;
    const double w = std::max(0.5, (t.end - t.start) * px);
    s << "<rect x=\"" << x << "\" y=\"" << kTop + lane * kLane + 2 << "\" width=\"" << w
      << "\" height=\"" << kLane - 4 << "\" fill=\"" << fill << "\"/>\n";
  }
  const int axis_y = kTop + lanes * kLane + 4;
  const double step = tick_step(span);
  for (double t = 0; t <= span * 1.0001; t += step) {
    const double x = kLabel + t * px;
    s << "<line x1=\"" << x << "\" y1=\"" << axis_y << "\" x2=\"" << x << "\" y2=\"" << axis_y + 5
      << "\" stroke=\"black\"/>\n<text x=\"" << x << "\" y=\"" << axis_y + 17
      << "\" text-anchor=\"middle\">" << t << "</text>\n";
  }
  s << "<text x=\"" << kLabel + (span * px) / 2 << "\" y=\"" << axis_y + 32
    << "\" text-anchor=\"middle\">time since the engine started (s); dark: row tiles, light: "
       "grouped small pairs</text>\n";
  if (a.lp_bound_seconds > 0) {
    const double x = kLabel + a.lp_bound_seconds * px;
    s << "<line x1=\"" << x << "\" y1=\"" << kTop - 4 << "\" x2=\"" << x << "\" y2=\"" << axis_y
      << "\" stroke=\"#c62828\" stroke-dasharray=\"4,3\"/>\n<text x=\"" << x << "\" y=\""
      << kTop - 8 << "\" fill=\"#c62828\" text-anchor=\"middle\">LP bound</text>\n";
  }
  s << "</svg>\n";
  return s.str();
}

}  // namespace pairhist
