// JSON of statute verdicts and reports (needs nlohmann-json; the other
// statute headers do not).
// (Part of the statutes library; damka/statutes.hpp includes every part.)

#pragma once

#include <string_view>

#include <nlohmann/json.hpp>

#include "damka/expected.hpp"
#include "damka/rules.hpp"
#include "damka/statute_judge.hpp"
#include "damka/statute_report.hpp"

namespace damka {

// The verdict as JSON: value, winner, wins_in_time, deciding clause, every
// applicable clause with its limit, moves needed and left, and the summary.
nlohmann::ordered_json verdict_json(const StatuteVerdict& verdict);

// A statute verdict as the front ends write it: the one JSON under
// "statutes" in `damka probe --json` and in `damka serve`'s answers, and the
// dict Python's Tablebase.judge() returns:
//   auto v = damka::judge(book, rules, p, moves_played, values);
//   nlohmann::ordered_json j = damka::statutes_json(book.name, moves_played, v);
// verdict_json() followed by "rulebook" and "moves_played"; when there is
// no verdict (a table it needs is missing or unreadable, a bad count, ...),
// {"rulebook", "status": "unknown", "error": why}.  Keys in that order (a
// caller keeping nlohmann::json gets them sorted).  Pure, thread-safe; cost
// linear in the verdict's clauses.
nlohmann::ordered_json statutes_json(std::string_view rulebook, int moves_played,
                                     const Expected<StatuteVerdict>& verdict);

// The statute report (analyse()) as JSON.  Keys keep the order written
// (ordered_json).  Pure; cost linear in the report.
nlohmann::ordered_json report_json(const StatuteReport& report, const Rules& rules);

}  // namespace damka
