// What a sweep over a material's table slots counts for its statistics
// (`damka info --stats`, probe's material_stats.hpp): positions won, drawn
// and lost by side to move, capture positions, and the longest wins by DTW
// and DTC with their lowest slot, and the record of them a ResultsJournal
// keeps (kind "stats").  Two sweeps count them: probe's material_stats()
// (the files read in slot order, capture positions through the Tablebase)
// and verify (every value checked one ply deep, verify.hpp
// VerifyOptions::stats_journal), so a verified set's statistics need no
// second sweep.
//
//   StatsTally t;
//   for (each slot s) t.see(s, s < index.size() ? 0 : 1, capture, dtw_value, dtc_value, has_dtw, has_dtc);
//   journal.record(rules, root, m, files, stats_tally_record(m, has_dtw, has_dtc, t));
//
// Determinism: counts are sums and each example is the lowest slot among the
// longest wins, so tallies merged in any order give the same numbers.
// Thread-safety: none inside; one tally per thread, merged.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "damka/expected.hpp"
#include "damka/material.hpp"
#include "damka/value.hpp"

namespace damka {

// Positions won, drawn and lost by the side to move.
struct WdlCounts {
  std::uint64_t wins = 0, draws = 0, losses = 0;
  constexpr std::uint64_t positions() const { return wins + draws + losses; }
  constexpr WdlCounts& operator+=(const WdlCounts& o) {
    wins += o.wins;
    draws += o.draws;
    losses += o.losses;
    return *this;
  }
  friend constexpr bool operator==(const WdlCounts&, const WdlCounts&) = default;
};

// The longest win seen in one distance metric: its plies, how many slots
// hold a win that long, and the lowest of them.
struct LongestSlot {
  bool found = false;
  std::uint16_t plies = 0;
  std::uint64_t slot = 0, count = 0;
  constexpr void see(std::uint16_t d, std::uint64_t s) {
    if (!found || d > plies) {
      *this = {true, d, s, 1};
    } else if (d == plies) {
      ++count;
      if (s < slot) slot = s;
    }
  }
  constexpr void merge(const LongestSlot& o) {
    if (!o.found) return;
    if (!found || o.plies > plies) {
      *this = o;
    } else if (o.plies == plies) {
      count += o.count;
      if (o.slot < slot) slot = o.slot;
    }
  }
  friend constexpr bool operator==(const LongestSlot&, const LongestSlot&) = default;
};

struct StatsTally {
  WdlCounts by_side[2];        // White to move, Black to move
  std::uint64_t captures = 0;  // slots whose side to move must capture
  LongestSlot dtw, dtc;        // wins only; found only where the metric's files are there

  // Counts one slot: `side` 0 for White to move (slots below
  // MaterialIndex::size()), 1 for Black; `value` its true value for the
  // side to move (DTW where has_dtw, else at least its WDL), `dtc` its true
  // DTC (read only where has_dtc and the slot is won).
  constexpr void see(std::uint64_t slot, int side, bool capture, Value value, Value dtc_value, bool has_dtw,
                     bool has_dtc) {
    captures += capture ? 1 : 0;
    WdlCounts& c = by_side[side];
    if (value.wdl == Wdl::Win) {
      ++c.wins;
      if (has_dtw) dtw.see(value.plies, slot);
      if (has_dtc) dtc.see(dtc_value.plies, slot);
    } else if (value.wdl == Wdl::Draw) {
      ++c.draws;
    } else {
      ++c.losses;
    }
  }
  constexpr void merge(const StatsTally& o) {
    for (int i = 0; i < 2; ++i) by_side[i] += o.by_side[i];
    captures += o.captures;
    dtw.merge(o.dtw);
    dtc.merge(o.dtc);
  }
  friend constexpr bool operator==(const StatsTally&, const StatsTally&) = default;
};

// A tally and which distance files its material has: what a record holds.
struct StatsRecord {
  bool has_dtw = false, has_dtc = false;
  StatsTally tally;
};

// The record of canonical material m's tally as JSON text (the journal's
// result): {"material", "white_to_move"/"black_to_move": [wins, draws,
// losses], "captures", "has_dtw", "has_dtc", "dtw"/"dtc": {"plies", "count",
// "slot"} or null}.  Cost: a few hundred bytes.
std::string stats_tally_record(const Material& m, const StatsRecord& r);
// The record back; InvalidArgument when `text` is not a record of m (another
// material, a missing field, a slot outside m's table, counts that do not
// add up to m's table slots).
Expected<StatsRecord> parse_stats_tally_record(const Material& m, std::string_view text);

}  // namespace damka
