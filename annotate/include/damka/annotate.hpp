// Annotating games: every position of a game that the tables cover gets its
// value, every move that changes the result for the side that plays it (a win
// let go to a draw or a loss, a draw to a loss) is marked with the moves that
// kept the value, and, under a rulebook, the move at which each draw statute's
// count reaches its limit (the game would end there as a draw) is marked.
// Output: annotated PDN (the values as comments) and JSON.
//
//   for (std::size_t i = 0; i < games.size(); ++i) {            // games = damka::read_pdn(text)
//     damka::AnnotatedGame a = damka::annotate_game(tb, games[i], i + 1, options);
//     std::cout << damka::annotated_pdn(a);                     // or annotated_json(a)
//   }
//
// Values come from the tables through Tablebase::probe (the value oracle that
// `damka probe` uses: capture positions through their captures), kept moves
// through Tablebase::probe_root, statute counts through count_game_plies.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "damka/pdn.hpp"
#include "damka/probe.hpp"
#include "damka/statutes.hpp"

namespace damka {

// A position's value for its side to move, as far as the tables give it.
struct GameValue {
  bool known = false;      // inside the tables' range and read (else nothing is said)
  Wdl wdl = Wdl::Draw;
  bool dtw_known = false;  // the DTW table was there too
  int dtw = 0;             // plies to the end of the game (wins and losses)
};

// A draw statute's count reaching its limit: the game ends there as a draw.
struct StatuteEnd {
  std::string clause;        // the clause number ("2.1.9.1.4")
  int limit = 0;             // moves of the stronger side
  int counted = 0;           // the count after the move (== limit)
  Color stronger = Color::White;
  std::size_t ply = 0;       // index of the move in the game (0: the first move)
};

struct AnnotatedMove {
  std::string number;        // "12." or "12..." (full moves, as PDN numbers them)
  std::string move;          // as damka writes it (move_to_string)
  std::string fen_after;     // the position it leads to
  GameValue after;           // that position's value, for its side to move
  bool error = false;        // the move changed the result for the side that played it
  Wdl before_result = Wdl::Draw, after_result = Wdl::Draw;  // for the mover, when `error`
  std::vector<std::string> keeping;  // when `error`: the moves that kept the value, best first
  std::vector<std::size_t> statute_ends;  // indexes into AnnotatedGame::statute_ends ending here
};

struct AnnotatedGame {
  std::size_t index = 0;     // 1-based place in the file
  std::size_t line = 0;      // line of the file where it begins
  std::vector<std::pair<std::string, std::string>> tags;
  std::string result;        // the result token as written ("" when none)
  std::string error;         // not empty: the game was skipped (why)
  Color first_to_move = Color::White;  // the variant's first side (move numbering)
  std::string start_fen;
  Color start_to_move = Color::White;
  GameValue start;
  std::vector<AnnotatedMove> moves;
  std::string rulebook;      // "" without one
  std::vector<StatuteEnd> statute_ends;  // each clause's first, in move order
  int errors() const;        // moves marked as errors (cost: one pass over the moves)
};

struct AnnotateOptions {
  const Rulebook* rulebook = nullptr;  // must govern the tables' variant (the caller checks)
};

// Annotates one game read by read_pdn.  Never fails: a game that cannot be
// read (its reading error, a bad FEN tag, an illegal move) comes back with
// `error` set and no moves.  Positions with more pieces than the tables hold
// are not probed.  Cost per move inside the tables: a WDL and a DTW probe,
// and a probe_root for each error; with a rulebook, a clause_covers per clause
// and move.  Thread-safe (Tablebase is; the rulebook is only read).
AnnotatedGame annotate_game(const Tablebase& tb, const PdnGame& pdn, std::size_t index,
                            const AnnotateOptions& options);

// The game as PDN: its tags (and [Annotator "damka"]), then its moves with
// the values as comments ({White wins in 7 plies}, {draw}), errors marked "?"
// with the moves that kept the value, statute ends, and its result.  The
// original comments and variations are not copied.  A skipped game gives ""
// (the caller reports it).  Cost linear in the game.
std::string annotated_pdn(const AnnotatedGame& game);

// The game as JSON: index, line, tags, result, start_fen, start, moves (number,
// move, fen_after, value, error with keeping, statute_ends), errors,
// statute_ends; a skipped game gives index, line, tags and error.  Strings
// are the file's bytes (dump with error_handler_t::replace where they may not
// be UTF-8).  Cost linear in the game; thread-safe.
nlohmann::ordered_json annotated_json(const AnnotatedGame& game);

}  // namespace damka
