// Statistics of a material's tables: how many positions are won, drawn and
// lost, and the longest wins by DTW and by DTC with an example position and
// its line.  `damka info --stats` and `damka serve` (GET
// /api/v1/{variant}/stats) print them.
//
//   auto tb = damka::Tablebase::open(damka::rules_of(damka::Variant::Russian), "data/tables");
//   auto s = damka::material_stats(**tb, *damka::Material::parse("3Kv1K"), {.threads = 2});
//   if (!s) { ... s.message() ... }
//   s->total.wins ... s->dtw.plies, s->dtw.position, s->dtw.line
//
// What is counted: every slot of the material's table (slots.hpp), one
// position each, values for the side to move.
//   - A material that is not symmetric (3Kv1K): every placement with White
//     to move and with Black to move.  Its colour-reversed material (1Kv3K)
//     has the same positions with colours swapped and the same values; it is
//     not counted again.
//   - A symmetric material (2Kv2K): White to move only, as the table holds
//     it; each Black-to-move position is the colour-reversed image of one of
//     these, with the same value, and is not counted again.
// So `positions` is the table's slot count (table_slots()), and the counts of
// the two sides to move are kept apart (by_side).
//
// Capture positions (the side to move must capture) are derived entries:
// their file entries are don't care (value_oracle.hpp), so their values come
// from the oracle through the Tablebase (their captures' successors, which
// have fewer pieces), never from the material's own file.  Every other
// position is read from the material's files (its WDL entry, and where it is
// not drawn its DTW and DTC entries).
//
// Memory: bounded.  The material's files are read block by block in slot
// order (each thread holds one chunk of 64 Ki slots of each metric, about
// 400 KiB); the successors are read through the Tablebase's bounded block
// cache (TablebaseOptions::cache_bytes).  Nothing grows with the table.
//
// Determinism: every count is a sum, and each example is the lowest slot
// among the longest wins, so the result is the same for any thread count.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "damka/expected.hpp"
#include "damka/material.hpp"
#include "damka/probe.hpp"
#include "damka/stats_tally.hpp"  // WdlCounts, and the counting and record shared with verify

namespace damka {

// The longest win for the side to move in one distance metric, and the
// position that shows it: the lowest slot holding such a win.
struct LongestWin {
  bool found = false;        // some position is won (and the metric's files are there)
  std::uint16_t plies = 0;   // the longest win's distance
  std::uint64_t count = 0;   // positions won in exactly `plies`
  Material material;         // the example's (canonical) material
  std::uint64_t slot = 0;    // the example's slot in that material's table
  Position position;         // position_at(material, slot)
  // The example's line: for DTW its principal variation to the end of the
  // game (Tablebase::principal_variation), for DTC the line to the next
  // capture or promotion (Tablebase::conversion_variation); `plies` moves.
  // Empty unless line_status is Ok (and when lines were not asked for).
  ProbeStatus line_status = ProbeStatus::Ok;
  std::vector<Move> line;
};

struct MaterialStats {
  Material material;            // canonical
  int sides = 2;                // 2: White and Black to move; 1: White only (symmetric material)
  std::uint64_t positions = 0;  // table slots: every position counted (see the top of this file)
  WdlCounts by_side[2];         // White to move, Black to move (Black: zero for a symmetric material)
  WdlCounts total;              // by_side[0] + by_side[1]
  std::uint64_t captures = 0;   // positions whose side to move must capture (valued by the oracle)
  bool has_dtw = false, has_dtc = false;  // whether the material's DTW / DTC files are there
  LongestWin dtw, dtc;          // found only when the file is there and some position is won
};

struct StatsOptions {
  int threads = 0;    // OpenMP threads for the sweep; 0 = the OpenMP default
  bool lines = true;  // compute the examples' lines (a few hundred probes each)
  // When set, called after each chunk of slots with the material's slots
  // done so far (one call at a time, from any of the sweep's threads).
  std::function<void(std::uint64_t done)> progress;
};

// The statistics of one canonical material's table in `tb`'s folder.  Needs
// the material's WDL file (DTW and DTC where present: a file missing leaves
// its LongestWin not found) and, for the capture positions, the tables of
// the materials their captures lead to (the DTW tables where this material
// has DTW, else the WDL tables: a capture position's DTC follows from its
// WDL, capture_dtc in value_oracle.hpp), and for the DTC example's line the
// DTC tables it reaches.
// Errors: NotFound when the material's WDL file or a table a capture needs
// is missing (the message names it); Corrupt when a file is damaged, of
// another material or variant, or when the files disagree; Io when a file
// cannot be read now; Other when `canonical` is not a valid canonical
// material with pieces on both sides.
// Cost: one read of each of the material's files, one position_at() and one
// has_capture() per slot, and for each capture position one oracle search
// (a few probes, mostly cache hits), spread over `threads` threads; then the
// two lines.  Thread-safe (tb is); uses `options.threads` OpenMP threads.
Expected<MaterialStats> material_stats(const Tablebase& tb, const Material& canonical,
                                       const StatsOptions& options = {});

// The numbers of `s` as the JSON text of an object, for a ResultsJournal
// (results_journal.hpp: `damka info --stats --journal`): the counts, the
// files present, and each longest win's plies, count and slot (not its
// position or line, which follow from the slot): stats_tally_record()
// (stats_tally.hpp), which verify also writes.  Cost: a few hundred bytes.
std::string stats_record(const MaterialStats& s);
// The statistics of `canonical` from a stats_record() of it: the example
// positions from their slots, their lines probed through `tb` again when
// options.lines (the same as material_stats() gives, without the sweep).
// InvalidArgument when `record` is not one of `canonical`'s.  Cost: the two
// lines (a few hundred probes).  Thread-safe.
Expected<MaterialStats> stats_from_record(const Tablebase& tb, const Material& canonical, std::string_view record,
                                          const StatsOptions& options = {});

// The canonical materials with a WDL file in tb.directory(), by pieces,
// then in Material order; none when there is no such folder.  Errors: the
// folder cannot be stat'ed or listed (Io, naming it).  Cost: one stat and
// one listing through tb.env() (names only; files are checked when read).
// Thread-safe.
Expected<std::vector<Material>> materials_with_tables(const Tablebase& tb);

// The statistics of every material with a given number of pieces, summed.
struct PieceCountStats {
  int pieces = 0;
  int materials = 0;               // materials summed
  int materials_with_dtw = 0;      // of which with a DTW file
  int materials_with_dtc = 0;      // of which with a DTC file
  std::uint64_t positions = 0;
  WdlCounts total;
  std::uint64_t captures = 0;
  // The longest over the materials (ties: the smallest material in Material
  // order, then its lowest slot); count sums the materials' counts at that
  // distance.
  LongestWin dtw, dtc;
};

// One entry per piece count present in `materials`, in increasing order.
// The result does not depend on the order of `materials`.  Cost: linear;
// copies the chosen examples' lines.  Thread-safe.
std::vector<PieceCountStats> stats_by_pieces(std::span<const MaterialStats> materials);

}  // namespace damka
