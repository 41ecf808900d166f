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
//
// A pass that does not follow a WDL (dtw or wdl, the "primary" pass) decides
// who wins; the others ("secondary") measure a count inside that result: the
// winner keeps the win and reaches the end of the count as soon as it can,
// the loser delays it.  Exits that restart a count are worth 1 ply; others
// are worth 1 + the successor's count.  Secondary metrics must restart on
// captures and promotions (so they read only the WDL of other materials).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "damka/value.hpp"

namespace damka {

enum ExitKind : std::uint8_t { kExitCapture = 1, kExitPromotion = 2, kExitManMove = 4 };
inline constexpr std::uint8_t kExitAll = kExitCapture | kExitPromotion | kExitManMove;

struct MetricSpec {
  std::string_view name;     // as in --metrics and messages
  std::uint8_t restarts;     // ExitKind bits that end the count (worth 1 ply)
  bool follows_wdl;          // secondary pass: measured inside a known WDL
  bool has_distance;         // false: only the sign is meaningful (stored as WDL)
  std::optional<Metric> file;  // the table file it is stored in, if any
};

inline constexpr MetricSpec kDtwSpec{"dtw", 0, false, true, Metric::DTW};
inline constexpr MetricSpec kWdlSpec{"wdl", kExitAll, false, false, Metric::WDL};
inline constexpr MetricSpec kDtcSpec{"dtc", kExitCapture | kExitPromotion, true, true, Metric::DTC};
inline constexpr MetricSpec kKingsOnlySpec{"kings-only", kExitAll, true, true, std::nullopt};

static_assert((kDtcSpec.restarts & (kExitCapture | kExitPromotion)) == (kExitCapture | kExitPromotion));
static_assert((kKingsOnlySpec.restarts & (kExitCapture | kExitPromotion)) == (kExitCapture | kExitPromotion));

// Which metrics a build produces.  The WDL file is always written (from the
// DTW pass when there is one, else from a WDL pass).
struct MetricSet {
  bool dtw = true, dtc = true;
  bool kings_only = false;  // computed in memory only (statutes)
  friend bool operator==(const MetricSet&, const MetricSet&) = default;
};

}  // namespace damka
