#include "drivers/cli/scattering_choice.hpp"

#include "drivers/cli/scattering_excess.hpp"
#include "pairhist/errors.hpp"

namespace pairhist {

bool structure_factor_chosen(const ScatteringOptions& o, const std::string& box_kind) {
  return o.structure_factor || (box_kind != "none" && !o.cut_sphere);
}

void check_scattering_choice(const ScatteringOptions& given, const ScatteringOptions& chosen,
                             bool window_given) {
  if (!given.subtract.empty() && given.cut_sphere)
    throw UsageError(
        "--cut-sphere-intensity chooses a run's own intensity; --subtract writes "
        "the excess of two runs' intensities: leave it out");
  if (!chosen.structure_factor && window_given)
    throw UsageError(
        "--window applies to the structure factor only (--structure-factor, or a periodic run "
        "without --cut-sphere-intensity)");
}

std::string periodic_default_note(const std::string& box_kind, bool on_run) {
  return "periodic box (" + box_kind +
         "): writing the structure factor S(q) from g(r); --cut-sphere-intensity writes the Debye "
         "intensity of the histograms cut at r_max " +
         (on_run ? "as well" : "instead");
}

ScatteringResult compute_chosen_scattering(
    const ScatteringOptions& given, bool window_given,
    const std::function<void(const ScatteringOptions&)>& check_files, ScatteringOptions& chosen) {
  // What is known before the run is read is checked first (its files too), then what its box
  // decides.
  chosen = given;
  chosen.structure_factor = structure_factor_chosen(given, given.subtract.empty() ? "any" : "none");
  check_scattering_choice(given, chosen, window_given);
  check_files(chosen);
  if (!given.subtract.empty()) return compute_excess(chosen);
  const ScatteringInputs in = read_scattering_inputs(given);
  if (chosen.structure_factor != structure_factor_chosen(given, in.run.result.box_kind)) {
    chosen.structure_factor = !chosen.structure_factor;
    check_scattering_choice(given, chosen, window_given);
    check_files(chosen);  // the other stem's files
  }
  ScatteringResult r = scattering_from_inputs(chosen, in);
  if (chosen.structure_factor && !given.structure_factor)
    r.notes.push_back(periodic_default_note(r.box_kind, false));
  return r;
}

}  // namespace pairhist
