// The JSON of material statistics (material_stats.hpp): the one JSON that
// `damka info --stats --json` prints for each variant and that `damka serve`
// answers (GET /api/v1/{variant}/stats), built by these functions.  With the
// probe (not the server) so that the CLI writes it without the HTTP library.
//
//   std::vector<damka::MaterialStats> all = ...;        // material_stats() of each material
//   nlohmann::json j = damka::variant_stats_json(tb.rules(), all);
//   // {"variant", "counts_cover", "materials": [...], "by_pieces": [...]}
//
// Words: "wins", "draws" and "losses" count positions by their value for the
// side to move; "positions" is their sum, the material's table slots
// (kStatsCoverage says which positions those are); "capture_positions" are
// those whose side to move must capture, valued through their captures.
// "longest_win" has "dtw" and "dtc": null when the metric's file is missing
// or no position is won, else {"plies", "positions" (won in exactly that
// many plies), "material", "slot", "fen", "side_to_move", "pv"}: the lowest
// slot among the longest wins, its FEN in the variant's notation, and its line
// (DTW: the principal variation to the end of the game; DTC: the line to the
// next capture or promotion) as move texts, or {"status"} when the line
// could not be read.
#pragma once

#include <span>
#include <string_view>

#include <nlohmann/json.hpp>

#include "damka/material_stats.hpp"
#include "damka/rules.hpp"

namespace damka {

// What the counts cover, in one sentence (the "counts_cover" field, and
// printed by `damka info --stats`).
inline constexpr std::string_view kStatsCoverage =
    "every position of each material's table: White and Black to move, except symmetric materials (White to move "
    "only; Black to move is the same by colour reversal); a colour-reversed material (1Kv3K) is counted under its "
    "table (3Kv1K); values for the side to move; capture positions valued through their captures";

// {"material", "pieces", "sides_to_move", "positions", "wins", "draws",
//  "losses", "white_to_move": {"wins", "draws", "losses"}, "black_to_move"
//  (not for a symmetric material), "capture_positions", "metrics",
//  "longest_win": {"dtw", "dtc"}}.  Cost: linear in the lines; thread-safe.
nlohmann::json material_stats_json(const Rules& rules, const MaterialStats& s);

// {"pieces", "materials", "materials_with_dtw", "materials_with_dtc",
//  "positions", "wins", "draws", "losses", "capture_positions",
//  "longest_win": {"dtw", "dtc"}}.  Cost: linear in the lines; thread-safe.
nlohmann::json piece_count_stats_json(const Rules& rules, const PieceCountStats& s);

// {"variant", "counts_cover", "materials": [material_stats_json, ...],
//  "by_pieces": [piece_count_stats_json, ...]} (by_pieces from
// stats_by_pieces(materials)).  Cost: linear; thread-safe.
nlohmann::json variant_stats_json(const Rules& rules, std::span<const MaterialStats> materials);

}  // namespace damka
