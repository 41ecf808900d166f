// Kings-only materials: one unit holding the whole table, solved in
// distance-ordered sweeps (UnitSolver::solve_sweep, engine_unit.hpp).
//
// The values are the same fixpoint as solve_serial's and solve_parallel's
// (engine_unit.cpp): a position is won at d + 1 when a successor is lost at
// d, and lost at d + 1 when its last successor becomes won at d.  What
// differs is the bookkeeping.  Those keep per position the exits of every
// pass, a queue distance, flags and buckets of entries (about 30 bytes with
// three passes); a kings-only position has no exit but its captures, and a
// capture position's value is its exits' (it has no quiet move), so here:
//  - a forward sweep gives every capture position its final value in every
//    pass and sets every other position's to kUnset;
//  - per pass, a byte per position counts the successors not yet won;
//  - the positions decided at distance d are found by scanning the chunks
//    that hold one (a 64-bit mask per chunk of kSweepChunk positions, bit
//    d % 64), instead of a queue.
// So a position costs its values (2 bytes per pass) and one byte.  Chunks
// are the threads' units of work at every step; decisions at d + 1 are made
// while the sweep of d runs (an atomic compare-and-swap for a win, the
// counter's last decrement for a loss) and never read before the sweep of
// d + 1, so the values do not depend on the number of threads.
#include <omp.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cassert>

#include "engine_unit.hpp"

namespace damka::engine_detail {
namespace {

std::uint16_t load(const std::uint16_t& c) {
  return std::atomic_ref<const std::uint16_t>(c).load(std::memory_order_relaxed);
}

// The distance a decided code holds, or kNone for a draw or kUnset.
constexpr std::uint32_t kNone = ~std::uint32_t{0};
std::uint32_t distance_of(std::uint16_t c) { return c == 0 || c == kUnset ? kNone : (c - 1u) >> 1; }

void mark(BigVector<std::uint64_t>& marks, std::uint64_t l, std::uint32_t d) {
  const std::uint64_t bit = std::uint64_t{1} << (d & 63);
  std::atomic_ref<std::uint64_t> m(marks[l / UnitSolver::kSweepChunk]);
  if (!(m.load(std::memory_order_relaxed) & bit)) m.fetch_or(bit, std::memory_order_relaxed);
}

}  // namespace

void UnitSolver::solve_sweep(const Unit& u, SweepScratch& s, std::vector<std::unique_ptr<SuccessorReader>>& readers,
                             LevelArrays& cur, int threads, std::string& error,
                             const std::function<void(double)>& progress, LevelSplit* split) const {
  assert(L_.m.wm == 0 && L_.m.bm == 0);
  assert(u.offset[0] == 0 && (u.parts == 1 || u.offset[1] == L_.K));
  const std::uint64_t n = u.parts * L_.K;
  const std::uint64_t chunks = (n + kSweepChunk - 1) / kSweepChunk;
  const int np = passes_.size();
  const bool par = threads > 1;
  s.pending.resize(n);
  s.marks.assign(chunks, 0);
  s.latest.resize(chunks);
  auto chunk_range = [&](std::int64_t c) {
    const std::uint64_t first = static_cast<std::uint64_t>(c) * kSweepChunk;
    return std::pair{first, std::min(n, first + kSweepChunk)};
  };
  const auto nc = static_cast<std::int64_t>(chunks);
  // With a split, chunk c is process c % parts's: it alone decides the
  // chunk's positions; the others' entries stay kUnset here (merged later).
  const int parts = split ? split->parts() : 1, part = split ? split->part() : 0;
  auto owner = [&](std::uint64_t l) { return static_cast<int>(l / kSweepChunk % static_cast<std::uint64_t>(parts)); };
  auto mine = [&](std::int64_t c) { return parts == 1 || c % parts == part; };
  // f(l, p) for the positions of chunk c in order (walk_positions: a king
  // walk, with an unrank where the chunk starts and where the second part
  // does).
  auto for_chunk = [&](std::int64_t c, auto&& f) {
    const auto [first, last] = chunk_range(c);
    walk_positions(u, first, last, f);
  };

  // A split's entries for other processes (position * 2 + 1 when it moves
  // into a won position, * 2 when into a lost one), by process, and what
  // they sent here.
  std::vector<std::vector<std::uint64_t>> outs(static_cast<std::size_t>(parts));
  std::vector<std::uint64_t> incoming;

  // Forward: capture positions take their exits' values in every pass; the
  // others are kUnset.  The derived bitmap's words lie inside one chunk.
  static_assert(kSweepChunk % 16 == 0);
  std::atomic<bool> failed{false};
#pragma omp parallel num_threads(threads)
  {
    MoveList moves;
    SuccessorReader& rd = *readers[static_cast<std::size_t>(omp_get_thread_num())];
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t c = 0; c < nc; ++c) {
      if (!mine(c)) continue;
      guarded(failed, error, [&] {
        if (before_unit_) before_unit_();
        for_chunk(c, [&](std::uint64_t l, const Position& p) {
          Exits ex;
          if (!add_capture_exits(p, moves, ex, rd)) {
            for (int i = 0; i < np; ++i) cur.codes[i][l] = kUnset;
            if (!cur.derived.empty()) cur.derived[l / 16] &= static_cast<std::uint16_t>(~(1u << (l % 16)));
            return;
          }
          // As solve_serial's start(): the best exit decides, in every pass.
          const Wdl w = ex.win[0] != kUnset ? Wdl::Win : (ex.flags & kDrawExit) ? Wdl::Draw : Wdl::Loss;
          for (int i = 0; i < np; ++i)
            cur.codes[i][l] = w == Wdl::Win    ? Value::win(ex.win[i]).encode()
                              : w == Wdl::Loss ? Value::loss(ex.loss[i]).encode()
                                               : std::uint16_t{0};
        });
      });
    }
  }
  if (split) {  // every process stops when one failed
    if (Status st = split->exchange(outs, incoming, failed.load()); !st.ok() && error.empty()) error = st.message();
    if (!error.empty()) return;
  }
  if (failed) return;
  if (progress) progress(0.5);

  bool unresolved = false;
  for (int pass = 0; pass < np; ++pass) {
    const MetricSpec& spec = passes_.specs[pass];
    const bool sec = spec.follows_wdl;
    std::uint16_t* const code = cur.codes[pass].data();
    const std::uint16_t* const prim = cur.codes[0].data();
    auto wdl = [&](std::uint64_t l) { return Value::decode(prim[l]).wdl; };

    // Start: count each undecided position's moves; mark the decided ones.
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
    for (std::int64_t c = 0; c < nc; ++c) {
      std::uint64_t m = 0;
      std::uint32_t latest = 0;
      if (!mine(c)) {
        s.marks[static_cast<std::uint64_t>(c)] = 0;
        s.latest[static_cast<std::uint64_t>(c)] = 0;
        continue;
      }
      for_chunk(c, [&](std::uint64_t l, const Position& p) {
        if (code[l] != kUnset) {  // a capture position
          if (const std::uint32_t d = distance_of(code[l]); d != kNone) {
            m |= std::uint64_t{1} << (d & 63);
            latest = std::max(latest, d);
          }
          return;
        }
        if (sec && wdl(l) == Wdl::Draw) {
          code[l] = 0;
          return;
        }
        const Bitboard occ = p.occupied();
        int in = 0;
        for (Bitboard b = p.kings[idx(p.side_to_move)]; b; b &= b - 1)
          in += popcount(king_step_targets(r_, lsb(b), occ));
        assert(in < 256);
        s.pending[l] = static_cast<std::uint8_t>(in);
        if (in == 0) {
          code[l] = Value::loss(0).encode();
          m |= 1;
        }
      });
      s.marks[static_cast<std::uint64_t>(c)] = m;
      s.latest[static_cast<std::uint64_t>(c)] = latest;
    }

    // Sweeps: distance d decides its predecessors at d + 1.
    for (std::uint32_t d = 0;; ++d) {
      const std::uint64_t bit = std::uint64_t{1} << (d & 63);
      const std::uint16_t won = Value::win(static_cast<int>(d) + 1).encode();
      const std::uint16_t lost = Value::loss(static_cast<int>(d) + 1).encode();
      auto visit = [&](std::uint64_t lp, bool win) {
        if (load(code[lp]) != kUnset) return;
        if (!win) {  // lp moves into a lost position: a win in d + 1 (if it keeps the win)
          if (sec && wdl(lp) != Wdl::Win) return;
          std::uint16_t expect = kUnset;
          if (std::atomic_ref<std::uint16_t>(code[lp]).compare_exchange_strong(expect, won)) mark(s.marks, lp, d + 1);
        } else {  // every successor of lp is won: lp is lost in d + 1
          // One thread needs no atomic (a locked decrement costs ~20 cycles).
          if ((par ? std::atomic_ref<std::uint8_t>(s.pending[lp]).fetch_sub(1) : s.pending[lp]--) != 1) return;
          if (sec && wdl(lp) != Wdl::Loss) return;
          std::atomic_ref<std::uint16_t>(code[lp]).store(lost, std::memory_order_relaxed);
          mark(s.marks, lp, d + 1);
        }
      };
      // The chunks holding a position decided at d, swept in rounds (one
      // with no split); a split sends each round's moves into other
      // processes' chunks to them, and applies what they sent.
      std::vector<std::int64_t> due;
      for (std::int64_t c = 0; c < nc; ++c)
        if (s.marks[static_cast<std::uint64_t>(c)] & bit) due.push_back(c);
      const std::size_t round = split ? std::max<std::size_t>(512, 64 * static_cast<std::size_t>(threads)) : due.size();
      std::vector<std::vector<std::vector<std::uint64_t>>> sent(static_cast<std::size_t>(threads));
      for (std::size_t from = 0;;) {
        const std::size_t to = std::min(due.size(), from + round);
#pragma omp parallel num_threads(threads)
        {
          auto& out = sent[static_cast<std::size_t>(omp_get_thread_num())];
          out.resize(static_cast<std::size_t>(parts));
#pragma omp for schedule(dynamic, 1)
          for (std::int64_t i = static_cast<std::int64_t>(from); i < static_cast<std::int64_t>(to); ++i) {
            const std::int64_t c = due[static_cast<std::size_t>(i)];
            guarded(failed, error, [&] {
              std::atomic_ref<std::uint64_t> m(s.marks[static_cast<std::uint64_t>(c)]);
              // Keep the bit while a capture position of the chunk may be
              // decided at d + 64k (k > 0): a spare sweep finds nothing.
              if (s.latest[static_cast<std::uint64_t>(c)] < d + 64) m.fetch_and(~bit, std::memory_order_relaxed);
              const auto [first, last] = chunk_range(c);
              std::array<std::uint64_t, 32> batch;
              MaterialIndex::LastWhiteKings whites;  // the chunk's positions are visited in rank order
              const auto at_d = static_cast<std::uint16_t>(2 * d + 1);  // won in d; lost in d is the next code
              for (std::uint64_t l = first; l < last; ++l) {
                const std::uint16_t v = load(code[l]);
                if (static_cast<std::uint16_t>(v - at_d) >= 2) continue;
                // The predecessors' entries are scattered over the table: their
                // cache lines are fetched a batch ahead (as solve_parallel does).
                const bool win = v & 1;
                std::size_t held = 0;
                for_each_unmove_index(u, position(u, l, whites), [&](std::uint64_t lp) {
                  if (held == batch.size()) {
                    for (const std::uint64_t lq : batch) visit(lq, win);
                    held = 0;
                  }
                  if (parts > 1 && owner(lp) != part) {
                    out[static_cast<std::size_t>(owner(lp))].push_back(lp * 2 + (win ? 1 : 0));
                    return;
                  }
                  __builtin_prefetch(&code[lp]);
                  if (win) __builtin_prefetch(&s.pending[lp]);
                  if (sec) __builtin_prefetch(&prim[lp]);
                  batch[held++] = lp;
                });
                for (std::size_t i = 0; i < held; ++i) visit(batch[i], win);
              }
            });
          }
        }
        from = to;
        if (!split) {
          if (failed) return;
          break;
        }
        for (int k = 0; k < parts; ++k) {
          auto& o = outs[static_cast<std::size_t>(k)];
          o.clear();
          for (auto& t : sent)
            if (!t.empty()) {
              o.insert(o.end(), t[static_cast<std::size_t>(k)].begin(), t[static_cast<std::size_t>(k)].end());
              t[static_cast<std::size_t>(k)].clear();
            }
        }
        if (Status st = split->exchange(outs, incoming, failed.load()); !st.ok() && error.empty()) error = st.message();
        if (!error.empty()) return;
#pragma omp parallel for num_threads(threads) schedule(static)
        for (std::int64_t i = 0; i < static_cast<std::int64_t>(incoming.size()); ++i) {
          const std::uint64_t e = incoming[static_cast<std::size_t>(i)];
          visit(e >> 1, e & 1);
        }
        if (split->count(from < due.size()) == 0) break;
      }
      bool more = false;
      for (std::uint64_t c = 0; c < chunks && !more; ++c) more = s.marks[c] != 0;
      if (split) more = split->count(more) > 0;
      if (!more) break;
    }

    // Never decided: a draw (a secondary pass must decide every won or lost
    // position its primary did).
#pragma omp parallel for num_threads(threads) schedule(static) reduction(|| : unresolved)
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(n); ++i)
      if (mine(i / static_cast<std::int64_t>(kSweepChunk)))
        unresolved = finish_code(code[i], sec, spec.has_distance) || unresolved;
    if (progress) progress(0.5 + 0.5 * (pass + 1) / np);
  }
  if (unresolved) inconsistent_ = true;
}

}  // namespace damka::engine_detail
