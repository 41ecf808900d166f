// Probing tables: the values of positions for engines and tools.
//
//   auto tb = damka::Tablebase::open(damka::rules_of(damka::Variant::Russian), "data/tables");
//   if (!tb) { ... tb.message() ... }
//   damka::ProbeResult r = (*tb)->probe(position, damka::Metric::DTW);
//   if (r.ok()) ... r.value ...   // else r.status says why there is no answer
//
// Values are for the side to move (value.hpp): WDL (no distance), DTW (plies
// to the end of the game) and DTC (plies to the next capture or promotion).
// A side to move without pieces has lost in 0 plies; a side to move without
// a legal move has too (tables hold those).
//
// Honesty.  An answer is either exact (ProbeStatus::Ok) or not given: a
// missing table, a table found corrupt, a block not in the cache for a
// conditional probe, or an invalid position each have their own status.
// Positions where the side to move must capture are never read from a
// table: their value is computed from their captures' successors (which
// have fewer pieces), so they are right whatever the table stores for them.
//
// Files.  Tables are read from <dir>/<family>/<material>.<wdl|dtw|dtc>
// (table_paths.hpp).  A material's files are opened on first use; a file
// missing then counts as missing for the life of the Tablebase (open a new
// one to see files added later); a file that is damaged (not a regular file,
// or a checksum, size or structure check fails, on open or on a block read)
// is reported once (TablebaseOptions::on_error, errors(), and the probe that
// met it answers Corrupt) and is then treated as missing.  An I/O failure
// that may pass (too many open files, EIO, no memory) is not corruption: the
// probe answers IoError, on_error hears of it, and the file is tried again
// by the next probe that needs it.  WDL probes use the .wdl file; DTW and
// DTC probes read the .wdl file first (a distance file leaves drawn
// positions don't care, FORMAT.md 3.5), then the .dtw or .dtc file for the
// positions that are not drawn.
//
// Cache and threads.  Every method is const and thread-safe.  Decompressed
// blocks are kept in a bounded cache (TablebaseOptions::cache_bytes, CLOCK
// eviction, an approximation of LRU).  A probe whose block is cached takes
// no lock and runs no locked instruction (block pointers are read atomically
// and freed only when no reader can hold them, by epochs; on Linux the
// evicting thread pays for the ordering with a membarrier(2) call, batched
// over many evictions); a miss reads and decompresses its block without a
// lock and takes a mutex (one of up to 16 shards') only to insert it.  The
// cache may exceed cache_bytes by 1/16 (evicted blocks awaiting release;
// in a cache so small that 1/16 is under 16 blocks, by 16 blocks, at most 1/4).
// ProbeMode::Conditional never touches the disk (no block read, no file
// opened): it answers NotCached instead.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "damka/env.hpp"
#include "damka/expected.hpp"
#include "damka/material.hpp"
#include "damka/movegen.hpp"
#include "damka/position.hpp"
#include "damka/rules.hpp"
#include "damka/value.hpp"
#include "damka/value_oracle.hpp"  // move_value, better_value
#include "damka/words.hpp"         // describe_value, result_word, color_word

namespace damka {

enum class ProbeStatus : std::uint8_t {
  Ok = 0,         // the value is exact
  Unknown = 1,    // a table the answer needs is missing (or was reported corrupt earlier)
  NotCached = 2,  // conditional probe: a block or file the answer needs is not in memory
  Corrupt = 3,    // a table the answer needs was found damaged by this probe: it has been
                  // reported (on_error, errors()) and is treated as missing from now on
  Invalid = 4,    // not a valid position: two pieces on a square, a man on its own
                  // promotion row, more than 12 pieces a side, or the side not to move has
                  // no pieces (the game is over)
  IoError = 5,    // a table could not be read now (the operating system failed: too many
                  // open files, EIO, no memory); nothing is marked broken and a later probe
                  // tries the file again.  Also: the file changed on disk since it was
                  // opened; then it stays so until the tables are opened again
};
// "ok", "unknown (table missing)", "not in cache", "table corrupt", "invalid
// position", "i/o error (table not readable now)": the status alone, as JSON
// writes it ({"status": ...}).  probe_status_error() says why, with details.
std::string_view probe_status_name(ProbeStatus s);
// The ErrorCode of a status that is not Ok: Unknown NotFound, Corrupt
// Corrupt, IoError Io, Invalid InvalidPosition, NotCached Other.
ErrorCode probe_status_code(ProbeStatus s);

// Which positions can be probed: the one rule, which every front end,
// Tablebase itself and the statutes' value sources apply.  A position can
// be probed when it is valid as parse_fen accepts it (no two pieces on a
// square, no man on its own promotion row, at most 12 pieces a side, the
// side to move White or Black) and the side not to move has pieces (else
// the game is over and no table holds it).  A side to move without pieces
// can be probed: it has lost in 0 plies.  Pure, thread-safe, O(1).
//
// unprobeable_reason: nullptr when p can be probed, else why not ("a man
// stands on its own promotion row", ...).  probeable: Ok, or an Error coded
// InvalidPosition whose message is "invalid position: <reason>".
const char* unprobeable_reason(const Position& p);
Status probeable(const Position& p);

enum class ProbeMode : std::uint8_t {
  Normal,       // reads blocks (and opens files) as needed
  Conditional,  // answers from the cache only: never reads from disk
};

struct ProbeResult {
  ProbeStatus status = ProbeStatus::Unknown;
  Value value;  // for the side to move; meaningful only when status == Ok
  constexpr bool ok() const { return status == ProbeStatus::Ok; }
};

// A legal move and the value it leads to, for the side that plays it.
struct MoveValue {
  Move move;
  Value dtw;               // DTW value of the move (win in d+1 when the reply side loses in d, ...)
  Value dtc;               // DTC value of the move (1 for a capture or promotion); see dtc_known
  bool dtc_known = false;  // false when a DTC table the move needs is missing
};

// A root move (probe_root): a legal move that keeps the position's value,
// with what is known of its distances, for the side that plays it.
struct RootMove {
  Move move;
  Value wdl;               // the move's WDL value (equal to the position's)
  Value dtw, dtc;          // valid when dtw_known / dtc_known
  bool dtw_known = false;  // false when a DTW table the move needs is missing
  bool dtc_known = false;  // false when a DTC table the move needs is missing
};

// The metric probe_root ranked its moves by.
enum class RootRanking : std::uint8_t {
  None,  // WDL only (or a draw): legal-move order
  DTW,   // wins shortest first, losses longest first, by DTW (ties by DTC where known)
  DTC,   // the same by DTC (DTW unknown for some move)
};

struct TablebaseOptions {
  // Bytes of decompressed blocks the cache may hold (0 = no cache: every
  // probe reads its block).  The per-block bookkeeping is counted too.
  std::size_t cache_bytes = std::size_t{64} << 20;
  // Read table files through a read-only memory map: a cache miss then costs
  // one system call less.  A mapped file must not be truncated while the
  // Tablebase lives (reading a page cut off kills the process with SIGBUS);
  // damka writes a table to a temporary name and renames it, which is safe,
  // but another program may not be.  false (the default): pread, and a file
  // truncated, written to or replaced under an open Tablebase is detected
  // (TableReader::check_unchanged) and its values are no longer served: its
  // probes answer IoError ("changed on disk ... reopen the tables").
  bool map_files = false;
  // Called once per table file found damaged, and once per I/O failure
  // (which may pass), with a message naming the file and the problem, from
  // the probing thread that met it.
  std::function<void(const std::string&)> on_error;
  // Every table file is opened, read and mapped, and the folder stat'ed and
  // listed, through it (env.hpp); null: default_env().  Must outlive the
  // Tablebase and its MaterialReaders.
  Env* env = nullptr;
};

struct CacheStats {
  std::uint64_t hits = 0, misses = 0;  // block look-ups (a miss reads the block unless conditional)
  std::uint64_t blocks = 0;            // blocks held now
  std::uint64_t bytes = 0;             // bytes held now (payload and bookkeeping)
  std::uint64_t capacity = 0;          // cache_bytes
  std::uint64_t reads = 0;             // blocks read from files
};

// Whether the table file of a material and metric can be used.
enum class TableState : std::uint8_t {
  Present,  // opened (or openable) and sound so far
  Missing,  // no file
  Broken,   // reported damaged: treated as missing
  Unreadable,  // could not be opened just now (I/O error); tried again on later use
};

class Tablebase {
 public:
  // Tables of `rules`' family under `dir` (the directory given to
  // `damka generate -o`, or its family subfolder: tables_root()).  Fails only
  // when `dir` is not a directory, or when it, its family subfolder or the
  // header of a table file checked cannot be read (an Io error naming the
  // folder or file); a family without tables opens and answers Unknown (see
  // max_pieces()).  Cost: one directory listing and the header checks of the
  // largest table file(s) found, through TablebaseOptions::env.
  // Thread-safe (distinct Tablebases share nothing).
  static Expected<std::unique_ptr<Tablebase>> open(const Rules& rules, const std::filesystem::path& dir,
                                                   TablebaseOptions options = {});
  ~Tablebase();
  Tablebase(const Tablebase&) = delete;
  Tablebase& operator=(const Tablebase&) = delete;

  const Rules& rules() const;
  // <dir>/<family>: where the files are looked for.
  const std::filesystem::path& directory() const;
  // The Env its files are read through (TablebaseOptions::env).
  Env& env() const;
  // The most pieces of a material with a table file present when opened
  // whose header was checked (its name alone is not trusted; 0 when there
  // were none).
  int max_pieces() const;

  // The value of p for its side to move in the metric.
  ProbeResult probe(const Position& p, Metric metric, ProbeMode mode = ProbeMode::Normal) const;
  ProbeResult probe_wdl(const Position& p, ProbeMode mode = ProbeMode::Normal) const {
    return probe(p, Metric::WDL, mode);
  }
  ProbeResult probe_dtw(const Position& p, ProbeMode mode = ProbeMode::Normal) const {
    return probe(p, Metric::DTW, mode);
  }
  ProbeResult probe_dtc(const Position& p, ProbeMode mode = ProbeMode::Normal) const {
    return probe(p, Metric::DTC, mode);
  }

  // Every legal move of p (identical capture paths merged) with its value,
  // best first: wins shortest first, then draws, then losses longest first
  // (by DTW, ties by DTC the same way, then generation order).  Needs the
  // DTW value of every successor (else the status says why and `out` is
  // empty); DTC values are given where their tables are present.  A
  // position without legal moves gives Ok and an empty list.
  ProbeStatus probe_moves(const Position& p, std::vector<MoveValue>& out,
                          ProbeMode mode = ProbeMode::Normal) const;

  // Like Fathom's tb_probe_root: the legal moves of p that keep its WDL
  // value (every winning move of a won position, every drawing move of a
  // drawn one, every move of a lost one), best first.  Needs only the WDL of
  // each successor (WDL files);
  // where the DTW tables of every kept move are present they are ranked by
  // DTW (ties by DTC), else where the DTC tables are by DTC, else they keep
  // the legal-move order (`ranking` says which; draws are never reordered).
  // A position without legal moves gives Ok and an empty list.  Cost: one
  // WDL probe per legal move plus, for the kept moves, one DTW and one DTC
  // probe each.  Thread-safe.
  ProbeStatus probe_root(const Position& p, std::vector<RootMove>& out, RootRanking& ranking,
                         ProbeMode mode = ProbeMode::Normal) const;

  // The principal variation: from p, the best move by DTW at each ply (the
  // winner's shortest win, the loser's longest defence) until the game
  // ends, so a win or loss in d plies gives d moves.  A drawn position has
  // no end: Ok with an empty line.
  ProbeStatus principal_variation(const Position& p, std::vector<Move>& pv) const;
  // The line to the next capture or promotion: from p, the best move by DTC
  // at each ply (the winner's quickest conversion among the moves that keep
  // the win, the loser's longest delay; ties in probe_moves order) until a
  // capture or promotion is played or the game ends, so a win or loss in d
  // plies by DTC gives d moves.  A drawn position: Ok with an empty line.
  // Needs the DTW and DTC tables of p and its successors along the line.
  // Cost: one probe_moves per ply.  Thread-safe.
  ProbeStatus conversion_variation(const Position& p, std::vector<Move>& line) const;

  // State of one table file (opens it if not tried yet).
  TableState table_state(const Material& m, Metric metric) const;
  // Canonical materials whose `metric` table (or, for DTW and DTC, the WDL
  // table, which says which positions are drawn) is missing or broken and would be needed to answer p or its moves: for
  // messages after an Unknown answer.
  std::vector<Material> missing_tables(const Position& p, Metric metric) const;

  CacheStats cache_stats() const;
  // Every error reported so far (one per damaged file), oldest first; I/O
  // failures (which may pass) are not kept here.
  std::vector<std::string> errors() const;
  // The message behind this thread's latest Corrupt or IoError answer from
  // any Tablebase ("" if none).  Cheap; thread-safe (one per thread).
  static const std::string& thread_last_problem();

 private:
  struct Impl;
  explicit Tablebase(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Why `tb` gave status `s` (not Ok) for p in `metric`, as an Error with its
// code (probe_status_code) and a message naming the problem: the missing
// tables and their folder ("no dtw table for 2Kv1K, 3Kv1K in T/russian"), the
// damaged or unreadable file (this thread's last problem), why p is invalid.
// Used by the CLI, Python and the C APIs alike.  Cost: for Unknown, one
// missing_tables() walk (a few file checks), except for a Conditional probe's
// status (`mode`), which names p's material and touches no file; else O(1).
// Thread-safe; call on the thread that got the status (it reads
// thread_last_problem()).
Error probe_status_error(const Tablebase& tb, const Position& p, ProbeStatus s, Metric metric,
                         ProbeMode mode = ProbeMode::Normal);

// Whether `tb` may answer p: probeable(p), and p has no more pieces than
// the largest table present (NotFound "no table has N pieces (the largest
// here has M)").  A cheap first check before probing; a missing table of a
// smaller material is found by the probe itself.  Thread-safe, O(1).
Status probeable(const Position& p, const Tablebase& tb);

}  // namespace damka
