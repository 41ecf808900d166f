// JSON of statute verdicts and reports (needs nlohmann-json; the other
// statute headers do not).
// (Part of the statutes library; damka/statutes.hpp includes every part.)

#pragma once

#include <nlohmann/json.hpp>

#include "damka/rules.hpp"
#include "damka/statute_judge.hpp"
#include "damka/statute_report.hpp"

namespace damka {

// The verdict as JSON: value, winner, wins_in_time, deciding clause, every
// applicable clause with its limit, moves needed and left, and the summary.
nlohmann::ordered_json verdict_json(const StatuteVerdict& verdict);

// Keys keep the order written (ordered_json).
nlohmann::ordered_json report_json(const StatuteReport& report, const Rules& rules);

}  // namespace damka
