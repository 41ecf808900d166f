// A statute verdict as the front ends write it: the one JSON under
// "statutes" in `damka probe --json` and in `damka serve`'s answers, and the
// dict Python's Tablebase.judge() returns.
//
//   auto v = damka::judge(book, rules, p, moves_played, values);
//   nlohmann::ordered_json j = damka::statutes_json(book.name, moves_played, v);
#pragma once

#include <string_view>

#include <nlohmann/json.hpp>

#include "damka/statutes.hpp"

namespace damka {

// verdict_json() followed by "rulebook" and "moves_played"; when there is
// no verdict (a table it needs is missing or unreadable, a bad count, ...),
// {"rulebook", "status": "unknown", "error": why}.  Keys in that order (a
// caller keeping nlohmann::json gets them sorted).  Pure, thread-safe; cost
// linear in the verdict's clauses.
nlohmann::ordered_json statutes_json(std::string_view rulebook, int moves_played,
                                     const Expected<StatuteVerdict>& verdict);

}  // namespace damka
