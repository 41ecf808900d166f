// Metrics as descriptions.  Every distance damka computes is the same
// retrograde pass (engine.hpp) over the quiet king moves of a material; a
// metric only says which exits (moves that leave the men configuration:
// captures, promotions, man moves) end or restart its count, whether it
// follows a win/draw/loss already known (the winner keeps the win), and how
// its table file is stored.
//
//   metric       restarts on                       follows WDL  file
//   dtw          nothing: plies to the game's end   no          .dtw (u16 planes)
//   wdl          everything (distances unused)      no          .wdl (2 bits)
//   dtc          capture, promotion                 yes         .dtc (u16 planes)
//   kings-only   capture, promotion, man move       yes         none (statutes)
//   statute      as the clause says (at least       no          none (statutes)
//                capture, promotion), with a limit
//
// A pass that does not follow a WDL (dtw or wdl, the "primary" pass) decides
// who wins; the others ("secondary") measure a count inside that result: the
// winner keeps the win and reaches the end of the count as soon as it can,
// the loser delays it.  Exits that restart a count are worth 1 ply; others
// are worth 1 + the successor's count.  Secondary metrics must restart on
// captures and promotions (so they read only the WDL of other materials).
//
// A limited count (limit_moves > 0; the draw statutes' clauses) is a primary
// pass whose exits to other materials are valued by whatever the successor
// source returns (the statute-aware values of the balances they reach) and
// whose winner must reach the end of its count within limit_moves moves
// (limit_count()).  The pass itself stores the count unlimited, so that an
// exit that continues the count (a man move that does not restart it) reads
// the distance on; an exit that restarts it reads the limited value.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "damka/value.hpp"

namespace damka {

enum ExitKind : std::uint8_t { kExitCapture = 1, kExitPromotion = 2, kExitManMove = 4 };
inline constexpr std::uint8_t kExitAll = kExitCapture | kExitPromotion | kExitManMove;

// The value a count limited to `limit_moves` moves of the winner gives a
// position whose unlimited count is v: a win in d plies needs ceil(d/2)
// moves of the winner (the winner is to move), a loss in d plies floor(d/2)
// (the defender moves first; a forced last move of the defender completes
// the winner's move before it); more than the limit is a draw.  Free.
constexpr Value limit_count(Value v, int limit_moves) {
  if (v.wdl == Wdl::Win && (v.plies + 1) / 2 > limit_moves) return Value::draw();
  if (v.wdl == Wdl::Loss && v.plies / 2 > limit_moves) return Value::draw();
  return v;
}

struct MetricSpec {
  std::string_view name;     // as in --metrics and messages
  std::uint8_t restarts;     // ExitKind bits that end the count (worth 1 ply)
  bool follows_wdl;          // secondary pass: measured inside a known WDL
  bool has_distance;         // false: only the sign is meaningful (stored as WDL)
  std::optional<Metric> file;  // the table file it is stored in, if any
  int limit_moves = 0;       // > 0: a limited count (see above); 0: none

  // The code an exit of `kind` (ExitKind) uses for a successor of this
  // metric's code `code` in the same material (a man move): the limited value
  // when the exit restarts a limited count, else the code itself.  Free.
  constexpr std::uint16_t exit_code(std::uint8_t kind, std::uint16_t code) const {
    return (limit_moves > 0 && (restarts & kind) != 0) ? limit_count(Value::decode(code), limit_moves).encode() : code;
  }
  friend constexpr bool operator==(const MetricSpec&, const MetricSpec&) = default;
};

inline constexpr MetricSpec kDtwSpec{"dtw", 0, false, true, Metric::DTW};
inline constexpr MetricSpec kWdlSpec{"wdl", kExitAll, false, false, Metric::WDL};
inline constexpr MetricSpec kDtcSpec{"dtc", kExitCapture | kExitPromotion, true, true, Metric::DTC};
inline constexpr MetricSpec kKingsOnlySpec{"kings-only", kExitAll, true, true, std::nullopt};

static_assert((kDtcSpec.restarts & (kExitCapture | kExitPromotion)) == (kExitCapture | kExitPromotion));
static_assert((kKingsOnlySpec.restarts & (kExitCapture | kExitPromotion)) == (kExitCapture | kExitPromotion));
static_assert(limit_count(Value::win(31), 15) == Value::draw() && limit_count(Value::win(29), 15) == Value::win(29));
static_assert(limit_count(Value::loss(31), 15) == Value::loss(31) && limit_count(Value::loss(32), 15) == Value::draw());

// Which metrics a build produces.  The WDL file is always written (from the
// DTW pass when there is one, else from a WDL pass).
struct MetricSet {
  bool dtw = true, dtc = true;
  bool kings_only = false;  // computed in memory only (statutes)
  friend bool operator==(const MetricSet&, const MetricSet&) = default;
};

}  // namespace damka
