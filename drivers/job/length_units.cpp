#include "drivers/job/length_units.hpp"

#include <sstream>

#include "pairhist/errors.hpp"

namespace pairhist {

double length_factor(const std::string& units) {
  // Trajectories store nm; the user's unit only changes r_max, edges and volumes reported.
  if (units == "nm") return 1.0;
  if (units == "angstrom" || units == "A") return 10.0;
  throw UsageError("unknown length unit '" + units + "' (use nm or angstrom)");
}

std::string format_length(double v, const std::string& unit) {
  std::ostringstream s;
  s.precision(6);
  s << v << ' ' << unit;
  return s.str();
}

}  // namespace pairhist
