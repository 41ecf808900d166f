// Rulebooks: the draw clauses of data/rulebooks/<name>.json, parsed and found.
// (Part of the statutes library; damka/statutes.hpp includes every part.)

#pragma once

#include <climits>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "damka/env.hpp"
#include "damka/expected.hpp"
#include "damka/material.hpp"
#include "damka/metric_spec.hpp"
#include "damka/rules.hpp"

namespace damka {

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
  unsigned restarts = 0;         // what restarts the count: ExitKind bits (metric_spec.hpp)
  std::string goal;              // what must happen in time ("capture of the lone king", ...)
  std::string reading;           // how the tables read the clause (assumptions)

  CountMetric metric() const {
    return restarts == 0 ? CountMetric::DTW : (restarts & kExitManMove) ? CountMetric::KingsOnly : CountMetric::DTC;
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
// The largest rulebook file read (a larger one is refused).
inline constexpr std::uint64_t kMaxRulebookBytes = std::uint64_t{16} << 20;
// Names of the rulebooks found (sorted, no duplicates): the *.json files of
// each folder listed through `env`; a folder that cannot be listed offers
// none.  Cost: one listing per folder.  Thread-safe when `env` is.
std::vector<std::string> known_rulebooks(const std::vector<std::filesystem::path>& dirs, Env& env = default_env());
// Loads <dir>/<name>.json from the first directory holding it (stat'ed and
// read through `env`); an unknown name is an error listing the known ones
// (InvalidArgument), a file that cannot be read an Io error naming it.
// Cost: a stat per folder until found, one read of the file, its parse.
// Thread-safe when `env` is.
Expected<Rulebook> load_rulebook(std::string_view name, const std::vector<std::filesystem::path>& dirs,
                                 Env& env = default_env());

}  // namespace damka
