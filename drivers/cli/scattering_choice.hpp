// Which quantity a run's scattering is by default: a periodic run's histograms stop at r_max
// (at most half the box), so their Debye sum is the intensity of a sphere cut out of the liquid
// (huge below 2 pi / r_max, negative in places), with no experimental counterpart; its
// scattering is the structure factor S(q) from g(r) unless the cut-sphere intensity is asked
// for (--cut-sphere-intensity). Runs without a box (clusters, --sphere) get their Debye
// intensity. docs/scattering.md.
#pragma once

#include <functional>
#include <string>

#include "drivers/cli/scattering_command.hpp"

namespace pairhist {

/// Whether a run with box kind `box_kind` ("none", "orthorhombic", ...) gets S(q) from
/// `pairhist scattering`: --structure-factor, or a periodic box without --cut-sphere-intensity.
bool structure_factor_chosen(const ScatteringOptions& options, const std::string& box_kind);

/// The usage errors of the choice, one line: --cut-sphere-intensity with --subtract (the excess
/// of two runs), --window where no structure factor is computed (`window_given`: on the command
/// line). `chosen`: the options with structure_factor as decided.
void check_scattering_choice(const ScatteringOptions& given, const ScatteringOptions& chosen,
                             bool window_given);

/// The note on stderr where a periodic run's default (S(q)) was taken; `on_run`: for `run
/// --scattering`, where --cut-sphere-intensity writes the intensity as well, not instead.
std::string periodic_default_note(const std::string& box_kind, bool on_run);

/// `pairhist scattering` of `given` (its command line; `window_given`: --window was on it): the
/// excess with --subtract, else S(q) or I(q) as the run decides, `chosen` the options as decided.
/// `check_files(options)` checks the outputs of `options` before the run is read (with S(q)
/// taken as likely) and again where the run decides otherwise. Throws as
/// check_scattering_choice(), compute_scattering() and compute_excess().
ScatteringResult compute_chosen_scattering(
    const ScatteringOptions& given, bool window_given,
    const std::function<void(const ScatteringOptions&)>& check_files, ScatteringOptions& chosen);

}  // namespace pairhist
