// A PhaseProfile (phase_profile.hpp) as JSON: what `generate --json` prints
// per table and for the run, and what generate() keeps in a folder's phase
// notes.  {"threads": 2, "wall_seconds": .., "busy_seconds": ..,
// "busy_share": .., "reads_seconds": .., "phases": {"units": {"wall_seconds":
// .., "busy_seconds": .., "busy_share": ..}, "team": .., "flush": ..,
// "write": .., "other": ..}}; busy_share = busy / (threads x wall).
#pragma once

#include <nlohmann/json.hpp>

#include "damka/expected.hpp"
#include "damka/phase_profile.hpp"

namespace damka {

nlohmann::json phase_profile_json(const PhaseProfile& p);
// The inverse (shares are ignored).  Error when a field is missing or not a
// number.
Expected<PhaseProfile> phase_profile_from_json(const nlohmann::json& j);

}  // namespace damka
