// What GET /api/v1/tables says about one variant: its board as its players
// see it (for the explorer) and the table files present.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>

#include "damka/probe.hpp"
#include "damka/rules.hpp"

namespace damka {

// {"name", "display_name", "family", "directory", "max_pieces", "first_to_move",
//  "start_fen", "example_fen", "mirrored_board", "numeric_notation", "squares": [32 x
//  {"name", "column", "row"}], "materials": [{"name", "pieces", "metrics"}],
//  "pieces": {"2": materials with 2 pieces, ...}}.  Squares are listed by
// internal number (a1 = 0 ... h8 = 31); column 0 is the left edge and row 0
// the bottom edge seen from White's side (mirrored boards: a1 is not a
// playing square).  Lists <dir>/<family>/ once through tb.env() (cost: one
// directory scan and a stat per table file).
nlohmann::json variant_listing(const Rules& rules, const std::filesystem::path& dir, const Tablebase& tb);

}  // namespace damka
