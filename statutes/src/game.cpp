// Games for the statutes: a PDN game or move list read, and each clause's
// count at its end, counted as an arbiter counts.
#include "damka/notation.hpp"
#include "damka/pdn.hpp"
#include "damka/statutes.hpp"

namespace damka {

Position GameRecord::final_position() const {
  Position p = start;
  for (const Move& m : moves) p = apply(p, m);
  return p;
}

Expected<GameRecord> game_from_pdn(const Rules& rules, const PdnGame& pdn) {
  if (!pdn.error.empty()) return Error("game: " + pdn.error);
  GameRecord g;
  g.start = start_position(rules);
  if (pdn.has_tag("FEN")) {
    auto p = parse_fen(rules, pdn.tag("FEN"));
    if (!p) return Error("game: bad FEN tag: " + p.message());
    g.start = *p;
  }
  if (!g.start.is_valid()) return Error("game: the start position is not valid");
  Position p = g.start;
  int ply = 0;
  for (const std::string& tok : pdn.moves) {
    auto m = parse_move(rules, p, tok);
    if (!m)
      return Error("game: move " + std::to_string(ply / 2 + 1) + (p.side_to_move == rules.first_to_move ? "" : "...") +
                   " " + quote_for_message(tok) + " is not legal in " + to_fen(rules, p) + ": " + m.message());
    g.moves.push_back(*m);
    p = apply(p, *m);
    ++ply;
  }
  return g;
}

Expected<GameRecord> parse_game(const Rules& rules, std::string_view text) {
  const std::vector<PdnGame> games = read_pdn(text);
  if (games.empty()) return game_from_pdn(rules, PdnGame{});
  if (games.size() > 1)
    return Error("game: the text holds " + std::to_string(games.size()) + " games (the second begins on line " +
                 std::to_string(games[1].line) + "); give one");
  return game_from_pdn(rules, games.front());
}

std::vector<StatuteCounters> count_game_plies(const Rulebook& book, const GameRecord& game) {
  // One count per clause number.
  struct Count {
    bool running = false;
    Color stronger = Color::White;
    unsigned restarts = 0;
    int moves = 0;
  };
  std::map<std::string, Count, std::less<>> counts;
  auto start_counts = [&](const Position& p) {
    for (const Clause& c : book.clauses) {
      if (!c.judgeable) continue;
      Count& k = counts[c.number];
      if (k.running) continue;
      if (auto s = clause_covers(book, c, p)) {
        k.running = true;
        k.stronger = *s;
        k.restarts = c.restarts;
        k.moves = 0;
      }
    }
  };
  auto running = [&] {
    StatuteCounters out;
    for (const auto& [number, k] : counts)
      if (k.running) out[number] = k.moves;
    return out;
  };
  std::vector<StatuteCounters> out;
  out.reserve(game.moves.size() + 1);
  Position p = game.start;
  start_counts(p);
  out.push_back(running());
  for (const Move& m : game.moves) {
    const bool man = (p.men[idx(p.side_to_move)] & bit(m.from)) != 0;
    for (auto& [number, k] : counts) {
      if (!k.running) continue;
      if (m.is_capture() || m.promotes || (man && (k.restarts & kExitManMove))) {
        k.running = false;  // the balance changed: the count ends
        continue;
      }
      if (p.side_to_move == k.stronger) ++k.moves;
    }
    p = apply(p, m);
    start_counts(p);
    out.push_back(running());
  }
  return out;
}

StatuteCounters count_game(const Rulebook& book, const GameRecord& game) {
  return count_game_plies(book, game).back();
}

}  // namespace damka
