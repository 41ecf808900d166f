// Draw statutes: the rulebooks' move limits for endgames, judged against the
// tables.
//
// A rulebook (data/rulebooks/<name>.json) lists its draw clauses.  A clause a
// table can judge names the material it applies to (per side: kings, men,
// pieces, each exact or "N+"), a position condition (a lone king on the main
// road a1-h8, ...), a limit in moves and what restarts the count (capture,
// promotion, man move).  Clauses a table cannot judge (agreement, repetition,
// clocks, an arbiter's judgement) are listed with the reason.
//
// Counting (each rulebook's "counting", data/rulebooks/*.json): the statutes count full moves of the
// side trying to win from when the balance of forces arose.  A won position
// whose count metric is d plies needs ceil(d/2) moves of the winner when the
// winner is to move, floor(d/2) when the defender is to move (the defender
// moves first; a forced conversion by the defender completes the winner's
// preceding move).  The count metric follows from the restarts:
//   nothing                       -> DTW of the tables: the count runs to the
//                                    end of the game (clauses whose goal is
//                                    the capture of the lone king, or the win);
//   capture, promotion            -> DTC of the tables (plies to the next
//                                    capture or promotion, the winner keeping
//                                    the win, the loser delaying);
//   capture, promotion, man move  -> "kings-only" distance: plies to the next
//                                    capture or man move under the same play,
//                                    computed here from the tables' WDL (equal
//                                    to DTC when no men are on the board).
// A restart ends the clause's count; the next balance is judged by its own
// clause (the report judges each clause on its own, it does not chain them).
//
// Orientation: in reports a material is written canonically (material.hpp):
// White is the side with more pieces (or as many pieces and more kings), so
// White is the stronger side of every clause that names one.

#pragma once

// Every part of the statutes library but its JSON (damka/statute_json.hpp):
#include "damka/rulebook.hpp"
#include "damka/statute_values.hpp"
#include "damka/statute_coverage.hpp"
#include "damka/statute_judge.hpp"
#include "damka/statute_report.hpp"
#include "damka/statute_svg.hpp"
