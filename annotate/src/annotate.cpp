// Annotating one game from the tables (annotate.hpp): values, errors, statute ends.
#include <algorithm>
#include <climits>
#include <set>

#include "damka/annotate.hpp"
#include "damka/notation.hpp"

namespace damka {
namespace {

// The value of p for its side to move: a side without pieces has lost; a
// position with more pieces than the tables hold is not asked for.
GameValue value_of(const Tablebase& tb, const Position& p) {
  GameValue v;
  if (p.pieces(p.side_to_move) == 0) {
    v.known = v.dtw_known = true;
    v.wdl = Wdl::Loss;
    return v;
  }
  if (!probeable(p, tb).ok()) return v;  // no table can hold it
  const ProbeResult wdl = tb.probe(p, Metric::WDL);
  if (!wdl.ok()) return v;
  v.known = true;
  v.wdl = wdl.value.wdl;
  const ProbeResult dtw = tb.probe(p, Metric::DTW);
  if (dtw.ok() && dtw.value.wdl == v.wdl) {
    v.dtw_known = true;
    v.dtw = dtw.value.plies;
  }
  return v;
}

Wdl flip(Wdl w) { return w == Wdl::Win ? Wdl::Loss : w == Wdl::Loss ? Wdl::Win : Wdl::Draw; }

// The statute ends of a game: for each clause number, the first ply after
// which its running count reaches the limit of the clause entry covering the
// position reached (entries sharing a number share the count).
std::vector<StatuteEnd> statute_ends(const Rulebook& book, const GameRecord& game) {
  const std::vector<StatuteCounters> counts = count_game_plies(book, game);
  std::vector<StatuteEnd> out;
  std::set<std::string> ended;
  Position p = game.start;
  for (std::size_t i = 0; i < game.moves.size(); ++i) {
    p = apply(p, game.moves[i]);
    for (const auto& [number, counted] : counts[i + 1]) {
      if (ended.count(number)) continue;
      int limit = INT_MAX;
      Color stronger = Color::White;
      for (const Clause& c : book.clauses) {
        if (!c.judgeable || c.number != number || c.limit >= limit) continue;
        if (const auto s = clause_covers(book, c, p)) {
          limit = c.limit;
          stronger = *s;
        }
      }
      if (limit == INT_MAX || counted < limit) continue;
      ended.insert(number);
      out.push_back({number, limit, counted, stronger, i});
    }
  }
  return out;
}

}  // namespace

int AnnotatedGame::errors() const {
  return static_cast<int>(std::count_if(moves.begin(), moves.end(), [](const AnnotatedMove& m) { return m.error; }));
}

AnnotatedGame annotate_game(const Tablebase& tb, const PdnGame& pdn, std::size_t index,
                            const AnnotateOptions& options) {
  const Rules& rules = tb.rules();
  AnnotatedGame g;
  g.index = index;
  g.line = pdn.line;
  g.tags = pdn.tags;
  g.result = pdn.result;
  g.first_to_move = rules.first_to_move;
  if (options.rulebook) g.rulebook = options.rulebook->name;
  auto record = game_from_pdn(rules, pdn);
  if (!record) {
    g.error = record.message();
    return g;
  }
  const GameRecord& game = *record;
  Position p = game.start;
  g.start_fen = to_fen(rules, p);
  g.start_to_move = p.side_to_move;
  g.start = value_of(tb, p);
  GameValue before = g.start;
  // Full-move numbers as PDN writes them: the first side's moves "n.", the
  // second side's "n..." (written only where a line starts with it).
  int number = 1;
  for (const Move& m : game.moves) {
    AnnotatedMove a;
    const bool first = p.side_to_move == rules.first_to_move;
    a.number = std::to_string(number) + (first ? "." : "...");
    if (!first) ++number;
    a.move = move_to_string(rules, p, m);
    const Position next = apply(p, m);
    a.fen_after = to_fen(rules, next);
    a.after = value_of(tb, next);
    if (before.known && a.after.known) {
      const Wdl mover_after = flip(a.after.wdl);
      if (static_cast<int>(mover_after) < static_cast<int>(before.wdl)) {
        a.error = true;
        a.before_result = before.wdl;
        a.after_result = mover_after;
        std::vector<RootMove> kept;
        RootRanking ranking = RootRanking::None;
        if (tb.probe_root(p, kept, ranking) == ProbeStatus::Ok)
          for (const RootMove& r : kept) a.keeping.push_back(move_to_string(rules, p, r.move));
      }
    }
    before = a.after;
    p = next;
    g.moves.push_back(std::move(a));
  }
  if (options.rulebook) {
    g.statute_ends = statute_ends(*options.rulebook, game);
    for (std::size_t i = 0; i < g.statute_ends.size(); ++i) g.moves[g.statute_ends[i].ply].statute_ends.push_back(i);
  }
  return g;
}

}  // namespace damka
