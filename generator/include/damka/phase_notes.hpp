// A folder's phase notes: the phase profile (phase_profile.hpp) of every
// material generate() built there, kept next to the tables so that a later
// `generate --dry-run` predicts other thread counts from this machine's
// measurement.  Written after each material (a resumed run keeps the
// entries of the materials built before); a material rebuilt replaces its
// entry.  Read as a hint (a missing or unreadable file means no notes);
// a failure to write them fails the run as a table's would (a full disk).
#pragma once

#include <filesystem>

#include "damka/env.hpp"
#include "damka/expected.hpp"
#include "damka/phase_profile.hpp"
#include "damka/rules.hpp"

namespace damka {

// "<out>/.damka-phases-<family>.json" (beside the output lock).
std::filesystem::path phase_notes_path(const Rules& rules, const std::filesystem::path& out);
// The notes at `path`; empty when the file is missing, unreadable or not
// notes (entries that are not profiles are left out).  Cost: reads the file.
PhaseNotes read_phase_notes(const std::filesystem::path& path, Env& env = default_env());
// Replaces the file at `path` with `notes` (replace_file: whole or not at all).
Status write_phase_notes(const std::filesystem::path& path, const PhaseNotes& notes, Env& env = default_env());

}  // namespace damka
