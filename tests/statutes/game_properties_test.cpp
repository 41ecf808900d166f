// Property tests (rapidcheck) of reading games for the statutes' counts:
// a game written by random play reads back to the same moves, and any text
// (random bytes, or a game with a mutated move) gives a game or an error with
// a message, never a crash; counts are never negative.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "damka/notation.hpp"
#include "fixture.hpp"

namespace {

using namespace damka;

// A random game from the start position, written as PDN movetext.
std::pair<std::string, std::vector<Move>> random_game(const Rules& r, int plies) {
  Position p = start_position(r);
  std::string text = "[Event \"random\"]\n";
  std::vector<Move> moves;
  MoveList list;
  for (int i = 0; i < plies; ++i) {
    generate_moves(r, p, list);
    if (list.empty()) break;
    const Move m = list[*rc::gen::inRange<std::size_t>(0, list.size())];
    if (p.side_to_move == r.first_to_move) text += std::to_string(i / 2 + 1) + ". ";
    text += move_to_string(r, p, m) + (i % 5 == 4 ? " {note} " : " ");
    moves.push_back(m);
    p = apply(p, m);
  }
  return {text + "*", moves};
}

RC_GTEST_PROP(StatuteGames, RandomGamesReadBackAndCountSanely, ()) {
  const Rules& r = statutes_test::russian();
  static const Rulebook book = statutes_test::book("russian-federation");
  const auto [text, moves] = random_game(r, *rc::gen::inRange(0, 120));
  auto g = parse_game(r, text);
  RC_ASSERT(g.ok());
  RC_ASSERT(g->moves.size() == moves.size());
  for (std::size_t i = 0; i < moves.size(); ++i) RC_ASSERT(g->moves[i].same_result(moves[i]));
  for (const auto& [clause, n] : count_game(book, *g)) {
    RC_ASSERT(n >= 0);
    RC_ASSERT(n <= static_cast<int>(moves.size()));
    RC_ASSERT(check_statute_counters(book, {{clause, n}}).ok());
  }
}

RC_GTEST_PROP(StatuteGames, AnyTextIsAGameOrAnError, ()) {
  const Rules& r = statutes_test::russian();
  auto [text, moves] = random_game(r, *rc::gen::inRange(1, 40));
  const std::string noise = *rc::gen::container<std::string>(rc::gen::inRange<char>(1, 127));
  const std::size_t at = *rc::gen::inRange<std::size_t>(0, text.size());
  const std::string mutated = text.substr(0, at) + noise + text.substr(at);
  for (const std::string& t : {mutated, noise}) {
    auto g = parse_game(r, t);
    if (!g) RC_ASSERT(!g.message().empty());
    else RC_ASSERT(g->final_position().is_valid());
  }
}

}  // namespace
