// Draw statutes: the rulebooks' move limits for endgames, judged against the
// tables.
//
// A rulebook (data/rulebooks/<name>.json) lists its draw clauses.  A clause a
// table can judge names the material it applies to (per side: kings, men,
// pieces, each exact or "N+"), a position condition (a lone king on the main
// road a1-h8, ...), a limit in moves and what restarts the count (capture,
// promotion, man move).  Clauses a table cannot judge (agreement, repetition,
// clocks, an arbiter's judgement) are listed with the reason.
//
// Counting (RULES.md, "Draw statutes"): the statutes count full moves of the
// side trying to win from when the balance of forces arose.  A won position
// whose count metric is d plies needs ceil(d/2) moves of the winner when the
// winner is to move, floor(d/2) when the defender is to move (the defender
// moves first; a forced conversion by the defender completes the winner's
// preceding move).  The count metric follows from the restarts:
//   nothing                       -> DTW of the tables: the count runs to the
//                                    end of the game (clauses whose goal is
//                                    the capture of the lone king, or the win);
//   capture, promotion            -> DTC of the tables (plies to the next
//                                    capture or promotion, the winner keeping
//                                    the win, the loser delaying);
//   capture, promotion, man move  -> "kings-only" distance: plies to the next
//                                    capture or man move under the same play,
//                                    computed here from the tables' WDL (equal
//                                    to DTC when no men are on the board).
// A restart ends the clause's count; the next balance is judged by its own
// clause (the report judges each clause on its own, it does not chain them).
//
// Orientation: in reports a material is written canonically (material.hpp):
// White is the side with more pieces (or as many pieces and more kings), so
// White is the stronger side of every clause that names one.
#pragma once

#include <climits>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "damka/expected.hpp"
#include "damka/material.hpp"
#include "damka/material_reader.hpp"
#include "damka/movegen.hpp"
#include "damka/metric_spec.hpp"
#include "damka/pdn.hpp"
#include "damka/position.hpp"
#include "damka/rules.hpp"
#include "damka/solver.hpp"
#include "damka/value.hpp"

namespace damka {

// ---------------------------------------------------------------- rulebooks

// A count: exactly n (min == max), at least n (max == INT_MAX), or a range.
struct CountSpec {
  int min = 0;
  int max = INT_MAX;
  constexpr bool matches(int n) const { return n >= min && n <= max; }
  constexpr bool is_any() const { return min == 0 && max == INT_MAX; }
  std::string describe() const;  // "3", "3+", "2-3"
};

// One side's pieces.  Every given count must match.
struct SideSpec {
  CountSpec kings, men, pieces;
  constexpr bool matches(int k, int m) const { return kings.matches(k) && men.matches(m) && pieces.matches(k + m); }
  std::string describe() const;  // "3 kings", "3+ kings, any men", "3 pieces", "any"
};

// The stronger side and the defender of one material a clause applies to.
struct SidePair {
  SideSpec stronger, weaker;
};

// Position conditions (all listed conditions must hold).
enum class Condition : std::uint8_t {
  // The weaker side is one king standing on the main road (kMainRoad).
  LoneKingOnMainRoad,
  // The weaker side is one king standing off the main road.
  LoneKingOffMainRoad,
  // A king of the stronger side stands on the main road (whatever the
  // defender does; reading of "holding the main road").
  StrongerHoldsMainRoad,
  // Each side has at least one king.
  BothSidesHaveKings,
};
std::string_view condition_name(Condition c);  // as in the JSON: "lone_king_on_main_road", ...
std::string condition_description(Condition c);

// What restarts a clause's count (bits).
enum RestartBits : unsigned { kRestartCapture = 1, kRestartPromotion = 2, kRestartManMove = 4 };

// The distance a clause's count is measured with (see the top of this file).
enum class CountMetric : std::uint8_t { DTW, DTC, KingsOnly };
std::string_view count_metric_name(CountMetric m);  // "dtw", "dtc", "kings-only"

struct Clause {
  std::string id;       // unique in the book, e.g. "2.1.9.1.5/4-5"
  std::string number;   // the book's own number, e.g. "2.1.9.1.5"
  std::string text;     // the book's wording (original language)
  std::string summary;  // what it says, in English
  bool judgeable = true;
  std::string reason;  // not judgeable: why a table cannot judge it

  // Judgeable clauses only.
  CountSpec pieces;              // pieces on the board
  std::vector<SidePair> sides;   // alternatives; a position needs one of them
  std::vector<Condition> conditions;
  std::vector<std::string> except;  // ids of clauses whose positions this one leaves out
  int limit = 0;                 // moves of the side trying to win
  unsigned restarts = 0;         // RestartBits
  std::string goal;              // what must happen in time ("capture of the lone king", ...)
  std::string reading;           // how the tables read the clause (assumptions)

  CountMetric metric() const {
    return restarts == 0 ? CountMetric::DTW : (restarts & kRestartManMove) ? CountMetric::KingsOnly : CountMetric::DTC;
  }
  std::string restarts_text() const;   // "capture, promotion", or "nothing (...)"
  std::string material_text() const;   // "3 kings vs 1 king; 4 pieces"
  std::string condition_text() const;  // "a king of the stronger side on the main road" or "none"
};

struct Rulebook {
  std::string name;      // file name without .json
  std::string title;
  std::string source;    // which seed/text, which section
  std::string counting;  // how the book counts moves
  std::vector<std::string> variants;  // variant names the book governs ("russian", ...)
  std::vector<Clause> clauses;
  std::filesystem::path path;  // where it was loaded from (empty if parsed from text)

  const Clause* find(std::string_view id) const;
  bool governs(const Rules& rules) const;
};

// Parses and validates a rulebook; `origin` names it in error messages.
Expected<Rulebook> parse_rulebook(std::string_view json_text, std::string_view origin);
// Directories searched for rulebooks, in order: `override_dir` if not empty
// (alone); else $DAMKA_RULEBOOKS if set (alone); else, upward from `exe_dir`,
// from the file holding this library (libdamka.so, the Python module or the
// executable; dladdr) and from the running executable: share/damka/rulebooks
// (an installed prefix, up to four levels) and data/rulebooks (a source tree,
// up to three levels); then ./data/rulebooks, then the configured install
// prefix's share/damka/rulebooks and the source tree's data/rulebooks
// (both compiled in).  Cost: a few stat calls; thread-safe.
std::vector<std::filesystem::path> rulebook_search_path(const std::filesystem::path& exe_dir = {},
                                                        const std::filesystem::path& override_dir = {});
// Names of the rulebooks found (sorted, no duplicates).
std::vector<std::string> known_rulebooks(const std::vector<std::filesystem::path>& dirs);
// Loads <dir>/<name>.json from the first directory holding it; an unknown name
// is an error listing the known ones.
Expected<Rulebook> load_rulebook(std::string_view name, const std::vector<std::filesystem::path>& dirs);

// ------------------------------------------------------------------- values

class Tablebase;   // probe.hpp
class CountStore;  // where computed statute-aware counts are kept (statutes/src/count_store.hpp)

// The statute-aware counts of one clause and canonical material, by slot
// (value.hpp codes), wherever they are kept (memory or a temporary file).
class StatuteCounts {
 public:
  virtual ~StatuteCounts() = default;
  virtual std::uint64_t slots() const = 0;
  // The code of one slot.  Errors: a read failure of a temporary file.
  // Cost: an array read, or a look-up in a bounded block cache (a block
  // read and decompression on a miss).  Thread-safe.
  virtual Expected<std::uint16_t> code(std::uint64_t slot) const = 0;
};

// A canonical material's positions and plain values in slot order, for
// walks over every slot (the statute report, the check of statute counts):
// from a folder, its own files read block by block (MaterialReader) with
// capture positions valued through the oracle; elsewhere position by position
// through ValueSource::value().  Memory: the caller's Range.
class SlotSource {
 public:
  using Range = MaterialReader::Range;
  using Reads = MaterialReader::Reads;
  virtual ~SlotSource() = default;
  // Reads slots [first, first + n): the WDL codes (codes[0]: the stored
  // entry; a capture position's means nothing unless `derived` says it is
  // not one), the distance codes asked for, and unless what.positions is
  // false the positions and their capture flags.  Thread-safe (per-call
  // Range).  Cost: the blocks the range touches, position_at() and
  // has_capture() per slot.
  virtual Status read(std::uint64_t first, std::uint64_t n, Reads what, Range& r) const = 0;
  // The plain value of slot r.first + j in `metric` (WDL or a distance read;
  // the positions read).  Thread-safe.  Cost: a decode, or for a capture
  // position a search over its captures.
  virtual Expected<Value> value(const Range& r, std::size_t j, Metric metric) const = 0;
};

// Where statutes read values: the plain values of positions (from tables in
// memory or from table files) and the statute-aware counts computed from
// them, per clause and canonical material.
class ValueSource {
 public:
  // The statute-aware counts computed are kept in memory.
  explicit ValueSource(const Rules& rules);
  // `counts` keeps the statute-aware counts computed; null: in memory.
  ValueSource(const Rules& rules, std::unique_ptr<CountStore> counts);
  virtual ~ValueSource();
  ValueSource(const ValueSource&) = delete;
  ValueSource& operator=(const ValueSource&) = delete;

  const Rules& rules() const { return rules_; }
  // Whether a table exists (without reading it).  Cost: a map look-up or two
  // stat calls.  Thread-safe.
  virtual bool has_table(const Material& canonical) const = 0;
  // "tables in data/tables/russian", for reports.
  virtual std::string describe() const = 0;

  // The value of a position for the side to move (WDL, DTW or DTC) by the
  // value oracle over the tables' stored entries; an error if a table it
  // needs is missing or unreadable.  A side to move without pieces has lost
  // (0).  Cost: one entry read (a capture position: a search over its
  // captures).  Thread-safe.
  virtual Expected<Value> value(const Position& p, Metric metric) const = 0;
  // A walk over a canonical material's slots (SlotSource).  Default: through
  // value() position by position.  Errors: the material's files missing or
  // foreign.  Cost: opening the files.  Thread-safe.
  virtual Expected<std::unique_ptr<SlotSource>> slots(const Material& canonical) const;
  // Memory the engine may use for one statute-aware build (bytes).
  virtual std::uint64_t engine_budget() const { return ~std::uint64_t{0}; }

  // Statute-aware counts (see "Statute-aware values" below) of every slot of
  // a canonical material under `clause` of `book`: the unlimited count, as
  // value.hpp codes; limit_count(count, clause.limit) is the statute-aware
  // value.  Computed on first use (with those of the materials its exits
  // reach first) and kept in the source's count store; `book` must outlive
  // this source.  Cost: one engine pass per material not computed yet.  Not
  // thread-safe (call it before reading counts from several threads).
  Expected<const StatuteCounts*> statute_table(const Rulebook& book, const Clause& clause,
                                               const Material& canonical) const;
  // The unlimited statute-aware count of p under `clause` (p's material need
  // not be covered: the count is defined for the whole balance).  Computes
  // the counts on first use (then not thread-safe, as statute_table).
  Expected<Value> statute_count(const Rulebook& book, const Clause& clause, const Position& p) const;
  // The value of p as the chain of `clause` reads it when a count starts at
  // p: the limited count of the entry of the same clause number that covers
  // p, or plain play (the tables' WDL) where none does.  Thread-safe once the
  // counts it reads are computed (statute_table computes those of the
  // materials a material's exits reach before its own).
  Expected<Value> statute_value(const Rulebook& book, const Clause& clause, const Position& p) const;

 protected:
  CountStore& count_store() const { return *counts_; }

 private:
  Expected<const StatuteCounts*> compute_counts(const Rulebook& book, const Clause& clause,
                                                const Material& canonical) const;
  const Rules& rules_;
  std::unique_ptr<CountStore> counts_;
};

// Values of an in-memory Solver (tests, or tables just built); counts kept
// in memory.
class SolverValues final : public ValueSource {
 public:
  explicit SolverValues(const Solver& solver);
  ~SolverValues() override;
  // The solver's table of a canonical material, or nullptr.  Thread-safe.
  Expected<const SolvedTable*> table(const Material& canonical) const { return solver_.table(canonical); }
  bool has_table(const Material& canonical) const override { return solver_.table(canonical) != nullptr; }
  std::string describe() const override { return "tables solved in memory"; }
  Expected<Value> value(const Position& p, Metric metric) const override;

  // The kings-only distance codes (value.hpp codes) of every slot of a
  // canonical material, computed on first use and kept.  Not thread-safe.
  Expected<const std::vector<std::uint16_t>*> kings_only(const Material& canonical) const;
  // The value of a position in a clause's count metric.  Not thread-safe
  // (kings-only codes are computed on first use).
  Expected<Value> count_value(const Position& p, CountMetric metric) const;
  // statute_table's codes as a vector (kept in memory here).  Not thread-safe.
  Expected<const std::vector<std::uint16_t>*> statute_counts(const Rulebook& book, const Clause& clause,
                                                             const Material& canonical) const;

 private:
  const Solver& solver_;
  mutable std::map<Material, std::vector<std::uint16_t>> kings_only_;
};

// Options of a TableDirValues.
struct TableDirOptions {
  // Bytes for the block caches (table files and temporary count files) and
  // the engine's statute-aware builds together.
  std::uint64_t memory_budget = std::uint64_t{2} << 30;
  // Bytes of each block cache; 0: an eighth of memory_budget, 4 MiB to 1 GiB.
  std::uint64_t cache_bytes = 0;
  // Where the temporary folder of statute-aware counts is made (mkdtemp;
  // removed when the source is destroyed).  Empty: counts are kept in
  // memory (for judging a few positions).
  std::filesystem::path work_dir;
};

// Values of table files in <dir>/<family>/ (table_paths.hpp), read through
// the probe library's bounded block cache (no table is held whole); the
// statute-aware counts go to temporary table files (TableDirOptions::
// work_dir) read back through a bounded block cache, or stay in memory.
class TableDirValues final : public ValueSource {
 public:
  // Opens nothing but the folder (an error there is returned by value()).
  // Cost: a directory listing.
  TableDirValues(const Rules& rules, std::filesystem::path dir, const TableDirOptions& options = {});
  ~TableDirValues() override;
  bool has_table(const Material& canonical) const override;
  std::string describe() const override;
  Expected<Value> value(const Position& p, Metric metric) const override;
  Expected<std::unique_ptr<SlotSource>> slots(const Material& canonical) const override;
  std::uint64_t engine_budget() const override { return engine_budget_; }

 private:
  std::filesystem::path dir_;
  std::unique_ptr<Tablebase> tb_;
  Error open_error_;  // why the tables could not be opened (with its code)
  std::uint64_t engine_budget_ = 0;
};

// Kings-only distance codes of one canonical material (see the top of the
// file): plies to the next capture, promotion or man move, the winner keeping
// the win.  Exits are valued with `values`; the material's own WDL comes from
// `table`.
Expected<std::vector<std::uint16_t>> compute_kings_only(const Rules& rules, const SolvedTable& table,
                                                        const ValueSource& values);

// ------------------------------------------------------ statute-aware values
//
// What Syzygy's "cursed wins" are to chess's 50-move rule.  For a clause and
// a position of a balance it covers: can the side that wins with perfect play
// still win when the clause's count starts at 0?  The count runs only while
// the clause's balance holds (the material: the clause's position conditions
// are read where the count starts).  A capture or promotion changes the
// balance and ends the count (so does a man move for a clause that restarts
// on man moves); the position reached is judged as the clause's chain reads
// it (ValueSource::statute_value): under the entry of the same clause number
// that covers it, with a fresh count, or by plain play where none does.  The
// count is in moves of the side trying to win (the side that wins): a win in
// d plies needs ceil(d/2) moves with the winner to move, floor(d/2) with the
// defender to move; more than the clause's limit is a draw.
//
// Computed by the generator's pass engine as a limited count
// (metric_spec.hpp): a primary pass over the balance whose exits are valued
// by the statute-aware values of what they reach; levels of men progress are
// solved top-down, so a man move reads a finished level (continuing the count
// or, for a clause restarting on man moves, starting it afresh).  Each clause
// is computed on its own (the clauses of other numbers are not chained in).
//
// The engine's description of a clause's count.
MetricSpec statute_spec(const Clause& clause);
// (ValueSource::statute_table computes and keeps the counts: the exits read
// statute_value, the materials reached computed first.  Errors: a successor
// table missing, or a statute-aware win that plain play does not win
// (inconsistent tables).  Cost: one pass of the engine over the material on
// every thread, a few seconds for the largest 5-piece materials.)

// Moves of the winner needed to reach the end of a count of `plies` plies
// from a position of value v (for the side to move): ceil(d/2) for a win,
// floor(d/2) for a loss; -1 for a draw.
constexpr int winner_moves(Value v) {
  return v.wdl == Wdl::Win ? (v.plies + 1) / 2 : v.wdl == Wdl::Loss ? v.plies / 2 : -1;
}

// ----------------------------------------------------------------- coverage

// Whether `clause` covers p, and which side is the stronger one.  For clauses
// whose sides could be either (same spec both ways) the stronger side is the
// one with more pieces; with as many pieces, the side `winner` if given, else
// White.  Clauses in `except` are checked through `book`.
std::optional<Color> clause_covers(const Rulebook& book, const Clause& clause, const Position& p,
                                   std::optional<Color> winner = std::nullopt);
// Whether a clause can cover some position of material m (either orientation),
// ignoring position conditions.
bool clause_matches_material(const Rulebook& book, const Clause& clause, const Material& m);

// -------------------------------------------------------------------- judge

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

// The verdict as JSON: value, winner, wins_in_time, deciding clause, every
// applicable clause with its limit, moves needed and left, and the summary.
nlohmann::ordered_json verdict_json(const StatuteVerdict& verdict);

// ------------------------------------------------------------------- report

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
// Keys keep the order written (ordered_json).
nlohmann::ordered_json report_json(const StatuteReport& report, const Rules& rules);

// An SVG picture of a clause: the board of its longest win and of its example
// position, with coordinates, captions and a legend in plain words; the title
// names the rulebook, the clause, the variant and each position.
std::string clause_svg(const StatuteReport& report, const ClauseReport& clause, const Rules& rules);
// A board with a caption (several lines).
std::string board_svg(const Rules& rules, const Position& p, const std::vector<std::string>& caption);
// Writes <dir>/<variant>/<book>/<clause id>.svg for every judgeable clause
// (ids with '/' written as '_'), so that runs for other variants or books do
// not overwrite each other; returns the files written.
Expected<std::vector<std::filesystem::path>> write_svgs(const StatuteReport& report, const Rules& rules,
                                                        const std::filesystem::path& dir);

}  // namespace damka
