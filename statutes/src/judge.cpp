// The rule-aware verdict on one position.
#include "damka/statutes.hpp"

namespace damka {
namespace {

const char* colour_name(Color c) { return c == Color::White ? "White" : "Black"; }

std::string count_phrase(const ClauseJudgement& j) {
  return std::string(count_metric_name(j.metric)) + " " + std::to_string(j.count.plies) + " plies";
}

}  // namespace

Expected<StatuteVerdict> judge(const Rulebook& book, const Rules& rules, const Position& p, int moves_played,
                               const ValueSource& values) {
  if (!book.governs(rules)) {
    std::string list;
    for (const auto& v : book.variants) list += (list.empty() ? "" : ", ") + v;
    return Error("rulebook " + book.name + " governs " + list + ", not " + std::string(rules.name));
  }
  if (moves_played < 0) return Error("moves played must be 0 or more");
  if (!p.is_valid()) return Error("invalid position");
  if (p.pieces(Color::White) == 0 || p.pieces(Color::Black) == 0)
    return Error("a side has no pieces: the game is over");
  auto dtw = values.value(p, Metric::DTW);
  if (!dtw) return dtw.error();
  StatuteVerdict v;
  v.value = *dtw;
  if (dtw->wdl != Wdl::Draw)
    v.winner = dtw->wdl == Wdl::Win ? p.side_to_move : opposite(p.side_to_move);

  int first_failing = -1, tightest = -1;
  for (const Clause& c : book.clauses) {
    if (!c.judgeable) continue;
    const auto stronger = clause_covers(book, c, p, v.winner);
    if (!stronger) continue;
    auto count = values.count_value(p, c.metric());
    if (!count) return count.error();
    ClauseJudgement j;
    j.id = c.id;
    j.number = c.number;
    j.summary = c.summary;
    j.limit = c.limit;
    j.metric = c.metric();
    j.stronger = *stronger;
    j.count = *count;
    j.winner = v.winner;
    j.moves_needed = v.winner ? winner_moves(*count) : -1;
    j.moves_left = c.limit - moves_played;
    j.in_time = v.winner && j.moves_needed >= 0 && j.moves_needed <= j.moves_left;
    v.clauses.push_back(j);
    const int i = static_cast<int>(v.clauses.size()) - 1;
    if (v.winner && !j.in_time) {
      if (first_failing < 0 || j.moves_left < v.clauses[first_failing].moves_left) first_failing = i;
    }
    auto slack = [&](const ClauseJudgement& x) { return x.moves_left - (v.winner ? x.moves_needed : 0); };
    if (tightest < 0 || slack(j) < slack(v.clauses[tightest])) tightest = i;
  }
  v.covered = !v.clauses.empty();
  v.deciding = first_failing >= 0 ? first_failing : tightest;
  v.wins_in_time = v.winner.has_value() && first_failing < 0;

  const ClauseJudgement* d = v.deciding_clause();
  std::string s;
  if (!d) {
    s = "no clause of " + book.name + " applies; ";
    s += v.winner ? std::string(colour_name(*v.winner)) + " wins (DTW " + std::to_string(v.value.plies) + " plies)"
                  : std::string("a draw with perfect play");
  } else if (!v.winner) {
    s = "a draw with perfect play; " + d->number + " would declare a draw after " + std::to_string(d->limit) +
        " moves (" + std::to_string(std::max(0, d->moves_left)) + " left)";
  } else if (v.wins_in_time) {
    s = std::string(colour_name(*v.winner)) + " wins in time: " + d->number + " allows " + std::to_string(d->limit) +
        " moves, " + std::to_string(moves_played) + " played, " + std::to_string(d->moves_left) +
        " left; the win needs " + std::to_string(d->moves_needed) + " (" + count_phrase(*d) + ")";
  } else {
    s = "draw by " + d->number + ": " + colour_name(*v.winner) + " needs " + std::to_string(d->moves_needed) +
        " moves (" + count_phrase(*d) + ") but " +
        (d->moves_left > 0 ? "only " + std::to_string(d->moves_left) + " are left"
                           : std::string("the limit is already reached")) +
        " (limit " + std::to_string(d->limit) + ", " + std::to_string(moves_played) + " played); without the statute " +
        colour_name(*v.winner) + " wins";
  }
  v.summary = s;
  return v;
}

Expected<StatuteVerdict> judge_with_tables(std::string_view rulebook, const Rules& rules, const Position& p,
                                           int moves_played, const std::filesystem::path& tables_dir,
                                           const std::filesystem::path& exe_dir) {
  auto book = load_rulebook(rulebook, rulebook_search_path(exe_dir));
  if (!book) return book.error();
  TableDirValues values(rules, tables_dir);
  return judge(*book, rules, p, moves_played, values);
}

nlohmann::ordered_json verdict_json(const StatuteVerdict& v) {
  using json = nlohmann::ordered_json;
  auto colour = [](std::optional<Color> c) -> json {
    if (!c) return nullptr;
    return *c == Color::White ? "white" : "black";
  };
  auto value = [](Value x) -> json {
    return {{"result", x.wdl == Wdl::Win ? "win" : x.wdl == Wdl::Loss ? "loss" : "draw"}, {"plies", x.plies}};
  };
  json clauses = json::array();
  for (const ClauseJudgement& j : v.clauses)
    clauses.push_back({{"id", j.id},
                       {"clause", j.number},
                       {"summary", j.summary},
                       {"limit", j.limit},
                       {"metric", count_metric_name(j.metric)},
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

}  // namespace damka
