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
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "damka/expected.hpp"
#include "damka/material.hpp"
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

// Where statutes read values: tables of canonical materials (codes per slot,
// as the generator stores them) and what is computed from them.
class ValueSource {
 public:
  explicit ValueSource(const Rules& rules) : rules_(rules) {}
  virtual ~ValueSource();
  ValueSource(const ValueSource&) = delete;
  ValueSource& operator=(const ValueSource&) = delete;

  const Rules& rules() const { return rules_; }
  // The table of a canonical material: nullptr if there is none; an error if
  // it exists but cannot be read.
  virtual Expected<const SolvedTable*> table(const Material& canonical) const = 0;
  // Whether a table exists, without loading it.
  virtual bool has_table(const Material& canonical) const = 0;
  // "tables in data/tables/russian", for reports.
  virtual std::string describe() const = 0;

  // The value of a position for the side to move (WDL, DTW or DTC); an error
  // if its table is missing.  A side to move without pieces has lost (0).
  Expected<Value> value(const Position& p, Metric metric) const;
  // The kings-only distance codes (value.hpp codes) of every slot of a
  // canonical material, computed on first use and kept.
  Expected<const std::vector<std::uint16_t>*> kings_only(const Material& canonical) const;
  // The value of a position in a clause's count metric.
  Expected<Value> count_value(const Position& p, CountMetric metric) const;

 private:
  const Rules& rules_;
  mutable std::map<Material, std::vector<std::uint16_t>> kings_only_;
};

// Values of an in-memory Solver (tests, or tables just built).
class SolverValues final : public ValueSource {
 public:
  explicit SolverValues(const Solver& solver) : ValueSource(solver.rules()), solver_(solver) {}
  Expected<const SolvedTable*> table(const Material& canonical) const override;
  bool has_table(const Material& canonical) const override { return solver_.table(canonical) != nullptr; }
  std::string describe() const override { return "tables solved in memory"; }

 private:
  const Solver& solver_;
};

// Values of table files in <dir>/<family>/ (table_paths.hpp), loaded on first
// use and kept.
class TableDirValues final : public ValueSource {
 public:
  TableDirValues(const Rules& rules, std::filesystem::path dir);
  Expected<const SolvedTable*> table(const Material& canonical) const override;
  bool has_table(const Material& canonical) const override;
  std::string describe() const override;

 private:
  std::filesystem::path dir_;
  mutable std::map<Material, std::unique_ptr<SolvedTable>> loaded_;
};

// Kings-only distance codes of one canonical material (see the top of the
// file): plies to the next capture, promotion or man move, the winner keeping
// the win.  Exits are valued with `values`; the material's own WDL comes from
// `table`.
Expected<std::vector<std::uint16_t>> compute_kings_only(const Rules& rules, const SolvedTable& table,
                                                        const ValueSource& values);

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

// One applicable clause, judged for a position.
struct ClauseJudgement {
  std::string id, number, summary;
  int limit = 0;
  CountMetric metric = CountMetric::DTC;
  Color stronger = Color::White;
  Value count;                 // value of the position in the clause's count metric (side to move)
  std::optional<Color> winner; // who wins with perfect play (no statutes)
  int moves_needed = -1;       // the winner's moves to the clause's goal; -1 if nobody wins
  int moves_left = 0;          // limit - moves_played; <= 0: the statute has already declared a draw
  bool in_time = false;        // the winner reaches the goal before the statute declares a draw
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

// Judges position p under the rulebook, `moves_played` moves of the stronger
// side having been played since the current balance arose.  That one count is
// used for every applicable clause (2.1.9.1.8 restarts on man moves as well,
// so with men on the board its own count may be smaller: the verdict is then
// on the safe side for the defender).  Each clause is judged on its own: the
// winner is in time for a clause when the moves it needs in that clause's
// metric are at most limit - moves_played.  Kings-only values of a material
// with men are computed on first use (a fraction of a second at 4 pieces) and
// kept in `values`.
// Errors: the book does not govern these rules, a table is missing,
// moves_played < 0, p invalid or with a side without pieces.
Expected<StatuteVerdict> judge(const Rulebook& book, const Rules& rules, const Position& p, int moves_played,
                               const ValueSource& values);

// The same in one call, for command lines and the C API: the rulebook is
// loaded by name (rulebook_search_path(exe_dir)) and the values are read from
// the table files in `tables_dir` (only the materials needed are loaded).
Expected<StatuteVerdict> judge_with_tables(std::string_view rulebook, const Rules& rules, const Position& p,
                                           int moves_played, const std::filesystem::path& tables_dir,
                                           const std::filesystem::path& exe_dir = {});

// The verdict as JSON: value, winner, wins_in_time, deciding clause, every
// applicable clause with its limit, moves needed and left, and the summary.
nlohmann::ordered_json verdict_json(const StatuteVerdict& verdict);

// ------------------------------------------------------------------- report

struct ReportOptions {
  int max_pieces = 7;  // materials considered (tables present or not) up to this many pieces
  int examples = 5;    // positions the clause turns into draws, listed per clause
};

// One position quoted by the report.
struct Example {
  Position position;
  Value count;          // value in the clause's count metric (side to move)
  Value dtc;            // value to the next capture or promotion
  Value dtw;            // value to the end of the game
  int moves_needed = 0; // the winner's moves (count metric)
};

// Counts of the positions of one side to move (colours as in the canonical material).
struct SideFigures {
  std::uint64_t positions = 0;
  std::uint64_t white_wins = 0, draws = 0, black_wins = 0;
  std::uint64_t over_limit = 0;   // won positions needing more moves than the limit
  int longest = -1;               // most winner moves needed by a won position; -1 if none won
  int longest_dtc = -1;           // the same counted to the next capture or promotion (DTC)
  int longest_dtw = -1;           // the same counted to the end of the game (DTW)
  std::uint64_t dtc_differs_from_dtw = 0;  // wins whose DTC differs from their DTW
  void add(const SideFigures& o);
  std::uint64_t wins() const { return white_wins + black_wins; }
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
  std::optional<Example> longest;  // the longest win (first found)
  std::optional<Example> example;  // shortest win the clause turns into a draw, else a covered draw
  std::string example_caption;
  std::vector<Example> saved;      // wins the clause turns into draws (the longest ones)
  std::string verdict;             // "the limit suffices for every won position" / "N won positions need ..."

  std::uint64_t positions() const { return total[0].positions + total[1].positions; }
  std::uint64_t wins() const { return total[0].wins() + total[1].wins(); }
  std::uint64_t over_limit() const { return total[0].over_limit + total[1].over_limit; }
  int longest_moves() const { return std::max(total[0].longest, total[1].longest); }
};

struct StatuteReport {
  std::string book_name, book_title, book_source, book_counting;
  std::string variant;
  std::string tables;  // ValueSource::describe()
  int max_pieces = 0;  // materials considered
  int largest_table = 0;  // most pieces among the materials with tables
  std::vector<ClauseReport> clauses;            // judgeable clauses, book order
  std::vector<Clause> not_judgeable;            // with their reasons
};

// Judges every clause of the book against the values.  Errors: the book does
// not govern these rules, a table present but unreadable.
Expected<StatuteReport> analyse(const Rulebook& book, const Rules& rules, const ValueSource& values,
                                const ReportOptions& options = {});

std::string report_text(const StatuteReport& report, const Rules& rules);
// Keys keep the order written (ordered_json).
nlohmann::ordered_json report_json(const StatuteReport& report, const Rules& rules);

// An SVG picture of a clause: the board of its longest win and of its example
// position, with coordinates and captions.
std::string clause_svg(const ClauseReport& clause, const Rules& rules);
// A board with a caption (several lines).
std::string board_svg(const Rules& rules, const Position& p, const std::vector<std::string>& caption);
// Writes <dir>/<book>-<clause id>.svg for every judgeable clause (ids with
// '/' written as '_'); returns the files written.
Expected<std::vector<std::filesystem::path>> write_svgs(const StatuteReport& report, const Rules& rules,
                                                        const std::filesystem::path& dir);

}  // namespace damka
