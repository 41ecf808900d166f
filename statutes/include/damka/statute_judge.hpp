// Judging: a position under a rulebook's clauses and the counts of a game.
// (Part of the statutes library; damka/statutes.hpp includes every part.)

#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "damka/expected.hpp"
#include "damka/movegen.hpp"
#include "damka/pdn.hpp"
#include "damka/position.hpp"
#include "damka/rulebook.hpp"
#include "damka/rules.hpp"
#include "damka/statute_values.hpp"
#include "damka/value.hpp"

namespace damka {

// Moves already played under each clause's count, by clause number (all the
// entries of that number, e.g. "2.1.9.1.5") or by entry id (e.g.
// "2.1.9.1.5/4-5"; an id wins over its number).  A clause not listed has 0.
using StatuteCounters = std::map<std::string, int, std::less<>>;

// Parses "2.1.9.1.5=12,2.1.9.1.8=3": every name must be a judgeable clause's
// number or id in `book`, every count 0 or more.  Errors name the problem.
Expected<StatuteCounters> parse_statute_counters(const Rulebook& book, std::string_view text);
// Checks counters given in code (the same rules as parse_statute_counters).
Status check_statute_counters(const Rulebook& book, const StatuteCounters& counters);

// A game: where it starts and the moves played (legal, in order).
struct GameRecord {
  Position start;
  std::vector<Move> moves;
  Position final_position() const;
};
// Reads one game: PDN as read_pdn reads it (tags such as [FEN "W:W...:B..."],
// move numbers, comments, variations and NAGs left out, a result) or a plain
// move list ("c3-d4 f6-g5 ...", captures with ':' or 'x').  Without a FEN tag
// the game starts from the variant's start position.  Errors: the text holds
// several games, a reading error (with its line), the move that is not legal.
Expected<GameRecord> parse_game(const Rules& rules, std::string_view text);
// The game of one PDN game read by read_pdn (pdn.hpp): its FEN tag (else the
// variant's start position) and its moves, each of which must be legal.
// Errors: the game's own reading error, a bad FEN tag, the first move that is
// not legal (its number and the position).  Cost: one parse_move per move.
Expected<GameRecord> game_from_pdn(const Rules& rules, const PdnGame& pdn);
// Each clause's count at the end of the game, as an arbiter counts it: a
// count starts where an entry of the clause first covers a position, runs in
// moves of that entry's stronger side, and ends at a capture, a promotion
// (and a man move for a clause that restarts on man moves); the next count
// starts where the clause covers a position again.  Keys are clause numbers
// (entries sharing a number share one count).  Cost: one clause_covers per
// clause and move.
StatuteCounters count_game(const Rulebook& book, const GameRecord& game);
// The same counts after every ply: element i holds the counts running in the
// position after i moves (element 0: the start; the last: count_game's).
// Cost as count_game; memory one map per ply.
std::vector<StatuteCounters> count_game_plies(const Rulebook& book, const GameRecord& game);

// One applicable clause, judged for a position.
struct ClauseJudgement {
  std::string id, number, summary;
  int limit = 0;
  int moves_played = 0;        // this clause's count so far
  Color stronger = Color::White;
  Value count;                 // statute-aware count (unlimited) of the position, side to move
  std::optional<Color> winner; // who wins with perfect play (no statutes)
  int moves_needed = -1;       // the winner's moves to the end of the count; -1 if the winner cannot end it
                               // in a won position (every winning exit is a statute draw) or nobody wins
  int moves_left = 0;          // limit - moves_played; <= 0: the statute has already declared a draw
  bool in_time = false;        // the winner ends the count, still winning, before the statute declares a draw
};

struct StatuteVerdict {
  bool covered = false;         // some clause of the book applies to the position
  Value value;                  // DTW value without statutes, for the side to move
  std::optional<Color> winner;  // who wins without statutes
  std::vector<ClauseJudgement> clauses;  // every applicable clause, book order
  // The clause that decides: the first to declare a draw the winner cannot
  // beat, or else the one with the least spare moves; -1 if none applies.
  int deciding = -1;
  // The winner still wins under the statutes (a win with no clause applying
  // counts as a win); false for draws.
  bool wins_in_time = false;
  // One line, e.g. "White wins in time: 2.1.9.1.4 allows 15 moves, 2 played,
  // 13 left; the win needs 13 (dtw 25 plies)" or "draw by 6.3.1: White needs
  // 6 moves (dtw 12 plies) but only 5 are left (limit 5, 0 played);
  // without the statute White wins".
  std::string summary;

  const ClauseJudgement* deciding_clause() const { return deciding < 0 ? nullptr : &clauses[deciding]; }
};

// Judges position p under the rulebook, each applicable clause with its own
// count from `counters` (moves of the stronger side played under that
// clause's count).  Each clause is judged on its own by its statute-aware
// count: the winner is in time when the moves it needs to end the count,
// still winning, are at most limit - moves played.  Statute-aware counts are
// computed on first use (seconds at 5 pieces) and kept in `values`.
// Errors: the book does not govern these rules, a table is missing, a
// counter names no judgeable clause or is negative, p invalid or with a side
// without pieces.  Not thread-safe (values caches).
Expected<StatuteVerdict> judge(const Rulebook& book, const Rules& rules, const Position& p,
                               const StatuteCounters& counters, const ValueSource& values);
// The same with one count for every applicable clause (callers that track a
// single count since the balance arose).
Expected<StatuteVerdict> judge(const Rulebook& book, const Rules& rules, const Position& p, int moves_played,
                               const ValueSource& values);

// The same in one call, for command lines and the C API: the rulebook is
// loaded by name (rulebook_search_path(exe_dir)) and the values are read from
// the table files in `tables_dir` (only the materials needed are loaded).
Expected<StatuteVerdict> judge_with_tables(std::string_view rulebook, const Rules& rules, const Position& p,
                                           const StatuteCounters& counters, const std::filesystem::path& tables_dir,
                                           const std::filesystem::path& exe_dir = {});
Expected<StatuteVerdict> judge_with_tables(std::string_view rulebook, const Rules& rules, const Position& p,
                                           int moves_played, const std::filesystem::path& tables_dir,
                                           const std::filesystem::path& exe_dir = {});

}  // namespace damka
