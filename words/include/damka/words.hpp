// The words damka writes about values, results and colours, built once and
// used by every front end (the CLI, `damka serve`, Python, both C APIs),
// by verify and by the statutes' reports.  JSON forms: words_json.hpp.
//
//   describe_value(Value::win(7), Metric::DTW)   "win in 7 plies"
//   describe_value(Value::win(1), Metric::DTC)   "win in 1 ply"
//   describe_value(Value::loss(3), Metric::WDL)  "loss" (WDL has no distance)
//   value_short(Value::win(5), Metric::DTW)      "win in 5" (table columns)
//   winner_text(Color::Black, Wdl::Loss)         "White wins"
//
// The words of single enums live beside their enums, where every layer can
// reach them: color_word / color_title (board.hpp: "white", "White"),
// result_word (value.hpp: "win", "draw", "loss"), metric_name (value.hpp:
// "wdl", "dtw", "dtc").  The words of probe statuses and of a probed
// position are in probe.hpp and position_report.hpp; a statute verdict's in
// statute_json.hpp.
//
// Every function here is pure: thread-safe, no I/O, cost linear in its output.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "damka/board.hpp"
#include "damka/value.hpp"

namespace damka {

// The colour named by "white", "w", "W", "black", "b" or "B"; nullopt otherwise.
std::optional<Color> parse_color(std::string_view text);
// The result named by "win", "draw" or "loss" (result_word's words); nullopt otherwise.
std::optional<Wdl> parse_result(std::string_view text);
// The metric named by "wdl", "dtw" or "dtc" (metric_name's words, or in capitals); nullopt otherwise.
std::optional<Metric> parse_metric(std::string_view text);

// "1 ply", "7 plies", "0 plies".
std::string plies_text(int plies);

// "win in 7 plies", "win in 1 ply", "loss in 0 plies", "draw"; "win" or
// "loss" alone in WDL (no distance).
std::string describe_value(Value v, Metric metric);

// The short form of tables and listings: "win in 5", "loss in 0", "draw";
// "win" or "loss" alone in WDL.
std::string value_short(Value v, Metric metric);

// The side that wins a position whose side to move has `result` (not a draw).
constexpr Color winner_of(Color to_move, Wdl result) { return result == Wdl::Win ? to_move : opposite(to_move); }

// "White wins", "Black wins" or "draw", for a position whose side to move
// (`to_move`) has `result`.
std::string winner_text(Color to_move, Wdl result);
// The same in lower case, as JSON writes it: "white wins", "black wins", "draw".
std::string winner_word(Color to_move, Wdl result);

}  // namespace damka
