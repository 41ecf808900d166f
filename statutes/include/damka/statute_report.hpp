// The statute report: every judgeable clause of a rulebook against the tables.
// (Part of the statutes library; damka/statutes.hpp includes every part.)

#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "damka/expected.hpp"
#include "damka/material.hpp"
#include "damka/movegen.hpp"
#include "damka/position.hpp"
#include "damka/rulebook.hpp"
#include "damka/rules.hpp"
#include "damka/statute_values.hpp"
#include "damka/value.hpp"

namespace damka {

struct ReportOptions {
  int max_pieces = 7;  // materials considered (tables present or not) up to this many pieces
  // When set, the one canonical material judged (the statute-aware counts
  // of the materials it converts into are computed as it needs them, not
  // reported).
  std::optional<Material> only;
  int examples = 5;    // positions the clause turns into draws, listed per clause
  // Called from the calling thread as each covered material with a table is
  // started and once at the end: positions (table slots) of the materials
  // judged so far and of all to judge, seconds since the start.  May be empty.
  std::function<void(const Material& material, std::uint64_t done, std::uint64_t total, double elapsed)> progress;
};

// One position quoted by the report.
struct Example {
  Position position;
  Value count;          // statute-aware count, unlimited (side to move)
  Value statute;        // statute-aware value: limit_count(count, limit)
  Value dtw;            // plain play: value to the end of the game
  int moves_needed = -1; // the winner's moves to end the count still winning; -1 if it cannot
  // The line played inside the balance as the count measures it (the winner
  // ending the count as soon as it can, the defender delaying), from the
  // position to the move that ends the count (a capture, a promotion, a man
  // move where that restarts the count, or the end of the game).
  std::vector<Move> line;
};

// Counts of the positions of one side to move (colours as in the canonical material).
struct SideFigures {
  std::uint64_t positions = 0;
  std::uint64_t white_wins = 0, draws = 0, black_wins = 0;           // plain play (no statutes)
  std::uint64_t sa_white_wins = 0, sa_draws = 0, sa_black_wins = 0;  // statute-aware
  std::uint64_t into_draws = 0;  // plain wins that are statute-aware draws
  std::uint64_t over_limit = 0;  // of those: the winner can end the count winning, but needs more than the limit
  int longest = -1;              // most winner moves among statute-aware wins (the clause's count); -1 if none
  int longest_needed = -1;       // most winner moves any plain win needs to end the count (may exceed the limit)
  void add(const SideFigures& o);
  std::uint64_t wins() const { return white_wins + black_wins; }
  std::uint64_t sa_wins() const { return sa_white_wins + sa_black_wins; }
  // Plain wins that can only be won by leaving the balance into a position the statute draws.
  std::uint64_t exit_drawn() const { return into_draws - over_limit; }
};

struct MaterialFigures {
  Material material;  // canonical
  SideFigures side[2];  // by side to move (idx(Color))
};

struct ClauseReport {
  Clause clause;
  std::vector<MaterialFigures> materials;  // covered materials with tables, in build order
  std::map<int, std::vector<Material>> missing;  // by piece count: covered materials without tables
  SideFigures total[2];
  std::optional<Example> longest;  // the longest statute-aware win (first found)
  std::optional<Example> example;  // shortest win the clause turns into a draw inside the balance, else a covered draw
  std::string example_caption;
  // Wins the clause turns into draws because the winner needs more moves
  // inside the balance than the limit (the longest first), with their lines.
  std::vector<Example> saved;
  std::string verdict;             // one sentence

  std::uint64_t positions() const { return total[0].positions + total[1].positions; }
  std::uint64_t wins() const { return total[0].wins() + total[1].wins(); }
  std::uint64_t into_draws() const { return total[0].into_draws + total[1].into_draws; }
  std::uint64_t over_limit() const { return total[0].over_limit + total[1].over_limit; }
  int longest_moves() const { return std::max(total[0].longest, total[1].longest); }
  int longest_needed() const { return std::max(total[0].longest_needed, total[1].longest_needed); }
};

struct StatuteReport {
  std::string book_name, book_title, book_source, book_counting;
  std::string variant;
  std::string tables;  // ValueSource::describe()
  int max_pieces = 0;  // materials considered
  std::optional<Material> only;  // ReportOptions::only
  int largest_table = 0;  // most pieces among the materials with tables
  std::vector<ClauseReport> clauses;            // judgeable clauses, book order
  std::vector<Clause> not_judgeable;            // with their reasons
};

// Judges every clause of the book against the values, by statute-aware
// values (computed here for every covered material with a table).  Errors:
// the book does not govern these rules, a table present but unreadable, a
// covered material whose successors' tables are missing.  Cost: one engine
// pass per clause and covered material (minutes for all 5-piece materials).
Expected<StatuteReport> analyse(const Rulebook& book, const Rules& rules, const ValueSource& values,
                                const ReportOptions& options = {});

std::string report_text(const StatuteReport& report, const Rules& rules);
// An example's line in move notation ("1. c3-d4 h8-g7 2. ...").
std::string example_line(const Rules& rules, const Example& e);

}  // namespace damka
