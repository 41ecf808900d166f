// Games for the statutes: a PDN game or move list read, and each clause's
// count at its end, counted as an arbiter counts.
#include <cctype>

#include "damka/notation.hpp"
#include "damka/statutes.hpp"

namespace damka {
namespace {

bool is_result(std::string_view t) {
  return t == "1-0" || t == "0-1" || t == "1/2-1/2" || t == "*" || t == "2-0" || t == "0-2" || t == "1-1" ||
         t == "0-0";
}

// "12." or "12..." (a move number), also glued to the move: "12.c3-d4".
std::string_view strip_move_number(std::string_view t) {
  std::size_t i = 0;
  while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) ++i;
  if (i == 0 || i >= t.size() || t[i] != '.') return t;
  while (i < t.size() && t[i] == '.') ++i;
  return t.substr(i);
}

}  // namespace

Position GameRecord::final_position() const {
  Position p = start;
  for (const Move& m : moves) p = apply(p, m);
  return p;
}

Expected<GameRecord> parse_game(const Rules& rules, std::string_view text) {
  GameRecord g;
  g.start = start_position(rules);
  std::string moves_text;
  // Tags and comments first.
  for (std::size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (c == '[') {
      const std::size_t end = text.find(']', i);
      if (end == std::string_view::npos) return Error("game: a tag '[' is not closed");
      const std::string_view tag = text.substr(i + 1, end - i - 1);
      const std::size_t q1 = tag.find('"'), q2 = tag.rfind('"');
      std::string name(tag.substr(0, tag.find_first_of(" \t")));
      for (char& ch : name) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
      if (name == "FEN") {
        if (q1 == std::string_view::npos || q2 == q1) return Error("game: the FEN tag has no quoted value");
        auto p = parse_fen(rules, tag.substr(q1 + 1, q2 - q1 - 1));
        if (!p) return Error("game: bad FEN tag: " + p.message());
        g.start = *p;
      }
      i = end + 1;
    } else if (c == '{') {
      const std::size_t end = text.find('}', i);
      if (end == std::string_view::npos) return Error("game: a comment '{' is not closed");
      moves_text += ' ';
      i = end + 1;
    } else {
      moves_text += c;
      ++i;
    }
  }
  if (!g.start.is_valid()) return Error("game: the start position is not valid");
  Position p = g.start;
  std::size_t at = 0;
  int ply = 0;
  while (at < moves_text.size()) {
    while (at < moves_text.size() && std::isspace(static_cast<unsigned char>(moves_text[at]))) ++at;
    std::size_t end = at;
    while (end < moves_text.size() && !std::isspace(static_cast<unsigned char>(moves_text[end]))) ++end;
    std::string_view tok = std::string_view(moves_text).substr(at, end - at);
    at = end;
    if (tok.empty()) continue;
    tok = strip_move_number(tok);
    if (tok.empty() || is_result(tok)) continue;
    if (!tok.empty() && std::isdigit(static_cast<unsigned char>(tok[0])) &&
        tok.find_first_not_of("0123456789.") == std::string_view::npos)
      continue;  // a bare move number
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

StatuteCounters count_game(const Rulebook& book, const GameRecord& game) {
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
  Position p = game.start;
  start_counts(p);
  for (const Move& m : game.moves) {
    const bool man = (p.men[idx(p.side_to_move)] & bit(m.from)) != 0;
    for (auto& [number, k] : counts) {
      if (!k.running) continue;
      if (m.is_capture() || m.promotes || (man && (k.restarts & kRestartManMove))) {
        k.running = false;  // the balance changed: the count ends
        continue;
      }
      if (p.side_to_move == k.stronger) ++k.moves;
    }
    p = apply(p, m);
    start_counts(p);
  }
  StatuteCounters out;
  for (const auto& [number, k] : counts)
    if (k.running) out[number] = k.moves;
  return out;
}

}  // namespace damka
