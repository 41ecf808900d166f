// The JSON of statute verdicts (statute_json.hpp; the report's is in report_json.cpp).
#include "damka/statute_json.hpp"

#include <optional>
#include <string>

#include "damka/words_json.hpp"

namespace damka {

nlohmann::ordered_json verdict_json(const StatuteVerdict& v) {
  using json = nlohmann::ordered_json;
  auto colour = [](std::optional<Color> c) -> json { return c ? json(color_word(*c)) : json(nullptr); };
  auto value = [](Value x) -> json { return value_json(x); };
  json clauses = json::array();
  for (const ClauseJudgement& j : v.clauses)
    clauses.push_back({{"id", j.id},
                       {"clause", j.number},
                       {"summary", j.summary},
                       {"limit", j.limit},
                       {"moves_played", j.moves_played},
                       {"count_kind", "statute-aware"},
                       {"stronger", colour(j.stronger)},
                       {"count", value(j.count)},
                       {"moves_needed", j.moves_needed < 0 ? json(nullptr) : json(j.moves_needed)},
                       {"moves_left", j.moves_left},
                       {"in_time", j.in_time}});
  const ClauseJudgement* d = v.deciding_clause();
  return {{"covered", v.covered},
          {"value", value(v.value)},
          {"winner", colour(v.winner)},
          {"wins_in_time", v.wins_in_time},
          {"deciding_clause", d ? json(d->id) : json(nullptr)},
          {"clauses", clauses},
          {"summary", v.summary}};
}

nlohmann::ordered_json statutes_json(std::string_view rulebook, int moves_played,
                                     const Expected<StatuteVerdict>& verdict) {
  if (!verdict.ok())
    return {{"rulebook", std::string(rulebook)}, {"status", "unknown"}, {"error", verdict.message()}};
  nlohmann::ordered_json v = verdict_json(*verdict);
  v["rulebook"] = std::string(rulebook);
  v["moves_played"] = moves_played;
  return v;
}

}  // namespace damka
