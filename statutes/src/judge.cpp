// The rule-aware verdict on one position.
#include "damka/statutes.hpp"

namespace damka {
namespace {

// "1 move", "2 moves".
std::string counted(int n, const char* one, const char* many) { return std::to_string(n) + " " + (n == 1 ? one : many); }

std::string count_phrase(const ClauseJudgement& j) {
  return "statute-aware count " + counted(j.count.plies, "ply", "plies");
}

int played_under(const StatuteCounters& counters, const Clause& c) {
  if (auto it = counters.find(c.id); it != counters.end()) return it->second;
  if (auto it = counters.find(c.number); it != counters.end()) return it->second;
  return 0;
}

}  // namespace

Status check_statute_counters(const Rulebook& book, const StatuteCounters& counters) {
  for (const auto& [name, n] : counters) {
    bool known = false;
    for (const Clause& c : book.clauses) known = known || (c.judgeable && (c.id == name || c.number == name));
    if (!known) {
      std::string list;
      for (const Clause& c : book.clauses)
        if (c.judgeable && list.find(c.number) == std::string::npos) list += (list.empty() ? "" : ", ") + c.number;
      return Error("no judgeable clause '" + name + "' in rulebook " + book.name + " (clauses with a count: " + list +
                   ")", ErrorCode::InvalidArgument);
    }
    if (n < 0) return Error("moves played under " + name + " must be 0 or more, not " + std::to_string(n), ErrorCode::InvalidArgument);
  }
  return {};
}

Expected<StatuteCounters> parse_statute_counters(const Rulebook& book, std::string_view text) {
  StatuteCounters out;
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    const std::string_view item = text.substr(at, comma - at);
    const std::size_t eq = item.find('=');
    if (eq == std::string_view::npos || eq == 0 || eq + 1 == item.size())
      return Error("a clause's count is CLAUSE=MOVES (e.g. 2.1.9.1.5=12), not '" + std::string(item) + "'", ErrorCode::InvalidArgument);
    const std::string name(item.substr(0, eq));
    const std::string number(item.substr(eq + 1));
    if (number.size() > 6 || number.find_first_not_of("0123456789") != std::string::npos)
      return Error("moves played under " + name + " must be a whole number 0 or more, not '" + number + "'", ErrorCode::InvalidArgument);
    if (out.count(name)) return Error("clause " + name + " is given twice", ErrorCode::InvalidArgument);
    out[name] = std::stoi(number);
    at = comma + 1;
  }
  if (Status s = check_statute_counters(book, out); !s.ok()) return s.error();
  return out;
}

Expected<StatuteVerdict> judge(const Rulebook& book, const Rules& rules, const Position& p, int moves_played,
                               const ValueSource& values) {
  if (moves_played < 0) return Error("moves played must be 0 or more", ErrorCode::InvalidArgument);
  StatuteCounters all;
  for (const Clause& c : book.clauses)
    if (c.judgeable) all[c.number] = moves_played;
  return judge(book, rules, p, all, values);
}

Expected<StatuteVerdict> judge(const Rulebook& book, const Rules& rules, const Position& p,
                               const StatuteCounters& counters, const ValueSource& values) {
  if (!book.governs(rules)) {
    std::string list;
    for (const auto& v : book.variants) list += (list.empty() ? "" : ", ") + v;
    return Error("rulebook " + book.name + " governs " + list + ", not " + std::string(rules.name), ErrorCode::InvalidArgument);
  }
  if (Status s = check_statute_counters(book, counters); !s.ok()) return s.error();
  if (Status s = probeable(p); !s.ok()) return s.error();  // the tables' own rule (probe.hpp)
  if (p.pieces(p.side_to_move) == 0)  // a position the tables answer (lost), but no statute count runs
    return Error("invalid position: the side to move has no pieces (the game is over)", ErrorCode::InvalidPosition);
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
    auto count = values.statute_count(book, c, p);
    if (!count) return count.error();
    ClauseJudgement j;
    j.id = c.id;
    j.number = c.number;
    j.summary = c.summary;
    j.limit = c.limit;
    j.moves_played = played_under(counters, c);
    j.stronger = *stronger;
    j.count = *count;
    j.winner = v.winner;
    j.moves_needed = v.winner && count->wdl != Wdl::Draw ? winner_moves(*count) : -1;
    j.moves_left = c.limit - j.moves_played;
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
  auto played = [](const ClauseJudgement& x) { return std::to_string(x.moves_played) + " played"; };
  if (!d) {
    s = "no clause of " + book.name + " applies; ";
    s += v.winner ? std::string(color_title(*v.winner)) + " wins (DTW " + counted(v.value.plies, "ply", "plies") + ")"
                  : std::string("a draw with perfect play");
  } else if (!v.winner) {
    s = "a draw with perfect play; " + d->number + " would declare a draw after " +
        counted(d->limit, "move", "moves") + " (" + std::to_string(std::max(0, d->moves_left)) + " left)";
  } else if (v.wins_in_time) {
    s = std::string(color_title(*v.winner)) + " wins in time: " + d->number + " allows " +
        counted(d->limit, "move", "moves") + ", " + played(*d) + ", " + std::to_string(d->moves_left) + " left; the win needs " +
        std::to_string(d->moves_needed) + " (" + count_phrase(*d) + ")";
  } else if (d->moves_needed < 0) {
    s = "draw by " + d->number + ": every way " + color_title(*v.winner) +
        " has to win leaves the balance into a position the statute draws (limit " + std::to_string(d->limit) + ", " +
        played(*d) + "); without the statute " + color_title(*v.winner) + " wins";
  } else {
    s = "draw by " + d->number + ": " + color_title(*v.winner) + " needs " +
        counted(d->moves_needed, "move", "moves") + " (" + count_phrase(*d) + ") but " +
        (d->moves_left > 0 ? "only " + counted(d->moves_left, "is left", "are left")
                           : std::string("the limit is already reached")) +
        " (limit " + std::to_string(d->limit) + ", " + played(*d) + "); without the statute " +
        color_title(*v.winner) + " wins";
  }
  v.summary = s;
  return v;
}

Expected<StatuteVerdict> judge_with_tables(std::string_view rulebook, const Rules& rules, const Position& p,
                                           const StatuteCounters& counters, const std::filesystem::path& tables_dir,
                                           const std::filesystem::path& exe_dir) {
  auto book = load_rulebook(rulebook, rulebook_search_path(exe_dir));
  if (!book) return book.error();
  TableDirValues values(rules, tables_dir);
  return judge(*book, rules, p, counters, values);
}

Expected<StatuteVerdict> judge_with_tables(std::string_view rulebook, const Rules& rules, const Position& p,
                                           int moves_played, const std::filesystem::path& tables_dir,
                                           const std::filesystem::path& exe_dir) {
  auto book = load_rulebook(rulebook, rulebook_search_path(exe_dir));
  if (!book) return book.error();
  TableDirValues values(rules, tables_dir);
  return judge(*book, rules, p, moves_played, values);
}

}  // namespace damka
