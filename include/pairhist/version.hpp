// The version of pairhist, as `pairhist --version` prints it and checkpoints record it.
#pragma once

namespace pairhist {

inline constexpr const char kVersionText[] = "0.1.0";

}  // namespace pairhist
