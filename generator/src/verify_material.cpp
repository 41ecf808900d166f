// The level-by-level check of one material: see verify_material.hpp.
//
// The material's own values: the level being checked and the one above
// (which its man moves reach), in the engine's level order (engine_layout.hpp:
// (side * configurations + configuration) * K + king placement), filled from
// the files block by block with every thread.  Each entry holds the true
// value: a drawn position's distance entries from its WDL entry
// (distance_value), a derived position's from the oracle's search over its
// captures.  Other materials (captures, promotions) are read through the
// generator's bounded successor readers.
#include "verify_material.hpp"

#include <omp.h>

#include <algorithm>
#include <cassert>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "damka/huge_pages.hpp"
#include "damka/movegen.hpp"
#include "damka/notation.hpp"
#include "damka/open_table.hpp"
#include "damka/slots.hpp"
#include "damka/solver.hpp"
#include "damka/stats_tally.hpp"
#include "damka/table_file.hpp"
#include "damka/table_paths.hpp"
#include "damka/value_oracle.hpp"
#include "engine_layout.hpp"
#include "file_successors.hpp"

namespace damka::verify_detail {
namespace {

using engine_detail::Layout;
using engine_detail::LevelSizes;

// Level offsets handed to a thread at a time.
constexpr std::uint64_t kChunk = 4096;
// A successor cache per reader: what the budget leaves after the levels
// (successors read at random thrash a small cache: each miss decodes a
// block), within these bounds.
constexpr std::uint64_t kMaxCache = std::uint64_t{1} << 30, kMinCache = std::uint64_t{1} << 20;

// The wdl entry of a derived position (WDL codes are 0..2).
constexpr std::uint8_t kDerived = 0xFF;
// Beside a WDL code in Level::wdl: the DTW or DTC file leaves this won or
// lost position out (a one-side file, FORMAT.md 3.5): its value is found
// one ply from the other side's stored ones, and only its WDL entry is
// checked.
constexpr std::uint8_t kUnstoredDtw = 0x40, kUnstoredDtc = 0x80, kWdlBits = 0x03;

// One level's values (see above); dtc empty when there is no DTC file.
struct Level {
  BigVector<std::uint8_t> wdl;    // the WDL file's entry (compared, never read as a successor), or kDerived
  BigVector<std::uint16_t> prim;  // true DTW codes (WDL codes without a DTW file)
  BigVector<std::uint16_t> dtc;   // true DTC codes
  int p = -1;
};

// Sequential reads of one file: the last decoded block.
struct Cursor {
  const TableReader* file = nullptr;
  std::uint64_t block = ~std::uint64_t{0}, first = 0;
  std::vector<std::uint16_t> codes;
  Status at(std::uint64_t slot, std::uint16_t& out) {
    const std::uint64_t bs = file->header().block_size;
    if (slot / bs != block) {
      block = ~std::uint64_t{0};
      if (Status s = file->read_block(slot / bs, codes); !s.ok()) return s;
      block = slot / bs;
      first = block * bs;
    }
    out = codes[slot - first];
    return {};
  }
};

std::uint64_t bytes_per_slot(const MetricSet& files) { return 1 + 2 + (files.dtc ? 2 : 0); }

// The first error of a parallel region, and whether there was one.
struct FirstError {
  std::atomic<bool> failed{false};
  Status status;
  bool in_dependency = false;
  void set(Status s, bool dependency) {
#pragma omp critical(damka_verify_error)
    if (!failed.load()) {
      status = std::move(s);
      in_dependency = dependency;
      failed.store(true);
    }
  }
};

// One thread's scratch for the one-ply searches of a chunk loop.
struct PlyScratch {
  MoveList moves;
  std::vector<std::uint16_t> sd, sc;  // successors' primary and DTC codes
  std::optional<SlotCursor> slots;    // the positions of the chunk's slots, in order
  const Position& position_at(const MaterialIndex& index, std::uint64_t slot) {
    if (!slots) slots.emplace(index);
    return slots->at(slot);
  }
};

// The chunk loop of a level's n_slots entries: body(t, o, scratch, counted)
// for every entry offset o, chunks of kChunk entries taken in turn by
// `threads` OpenMP threads (t: the thread's number); a body returning
// false ends its chunk.  Once `err` is set no further chunk starts; an
// exception becomes m's Io error.  after_chunk(t, begin, end) follows every
// chunk started.  Returns the sum of what the bodies added to `counted`.
template <class Body, class AfterChunk>
std::uint64_t for_each_chunk(int threads, std::uint64_t n_slots, FirstError& err, const Material& m, Body&& body,
                             AfterChunk&& after_chunk) {
  const std::int64_t chunks = static_cast<std::int64_t>((n_slots + kChunk - 1) / kChunk);
  std::uint64_t counted = 0;
#pragma omp parallel num_threads(threads) reduction(+ : counted)
  {
    const int t = omp_get_thread_num();
    PlyScratch scratch;
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t c = 0; c < chunks; ++c) {
      if (err.failed.load(std::memory_order_relaxed)) continue;
      const std::uint64_t begin = c * kChunk, end = std::min<std::uint64_t>(n_slots, (c + 1) * kChunk);
      try {
        for (std::uint64_t o = begin; o < end; ++o)
          if (!body(t, o, scratch, counted)) break;
      } catch (const std::exception& e) {
        err.set(Error(m.name() + ": " + e.what(), ErrorCode::Io), false);
      }
      after_chunk(t, begin, end);
    }
  }
  return counted;
}

}  // namespace

std::uint64_t level_bytes(const Material& canonical, const MetricSet& files) {
  const LevelSizes L(canonical);
  std::uint64_t most = 0;
  for (std::size_t p = 0; p < L.count(); ++p)
    most = std::max(most, L.level_slots(static_cast<int>(p)) +
                              (p + 1 < L.count() ? L.level_slots(static_cast<int>(p) + 1) : 0));
  return most * bytes_per_slot(files);
}

MaterialOutcome check_material(const Rules& rules, const std::filesystem::path& root, const Material& m,
                               const MetricSet& files, const VerifyOptions& opts,
                               const std::function<void(const VerifyMismatch&)>& mismatch,
                               std::atomic<std::uint64_t>& done, const std::function<void()>& progress,
                               Residency& residency) {
  MaterialOutcome out;
  const int threads = std::max(1, opts.threads);
  const Layout L(m);
  const std::uint64_t N = L.index.size();
  const std::uint64_t K = L.K;

  // Memory: two levels, then the successor caches (two readers a thread).
  std::uint64_t most = 0;
  for (std::size_t p = 0; p < L.levels.size(); ++p)
    most = std::max(most, L.level_slots(static_cast<int>(p)));
  const std::uint64_t levels = level_bytes(m, files);
  const int readers_per_thread = files.dtc ? 2 : 1;
  const std::uint64_t min_need = levels + std::uint64_t(threads) * readers_per_thread * kMinCache;
  if (min_need > opts.memory_budget) {
    out.status = Error(m.name() + ": needs " + format_bytes(min_need) + " of memory to verify with " +
                       std::to_string(threads) + " threads, limit " + format_bytes(opts.memory_budget) +
                       " (raise --memory)");
    return out;
  }
  // 7/8 of the budget, as generate plans it: the rest for file indexes, stacks and the allocator.
  const std::uint64_t usable = opts.memory_budget / 8 * 7;
  const std::uint64_t taken = levels + residency.held;
  const std::uint64_t cache = std::clamp<std::uint64_t>(
      (usable > taken ? usable - taken : 0) / (std::uint64_t(threads) * readers_per_thread), kMinCache, kMaxCache);

  // The material's own files.
  std::unique_ptr<TableReader> own[3];
  const Metric own_metrics[3] = {Metric::WDL, Metric::DTW, Metric::DTC};
  const bool own_present[3] = {true, files.dtw, files.dtc};
  Env& env = env_or_default(opts.env);
  for (int f = 0; f < 3; ++f) {
    if (!own_present[f]) continue;
    auto r = open_table(table_path(root, rules, m, own_metrics[f]), rules, m, own_metrics[f], FileAccess::Pread, env);
    if (!r) {
      out.status = r.error();
      return out;
    }
    own[f] = std::move(*r);
  }
  // Every other material, through the generator's readers.
  const Metric primary = files.dtw ? Metric::DTW : Metric::WDL;
  std::unique_ptr<FileSuccessors> prim_src, dtc_src;
  {
    auto a = FileSuccessors::open(rules, root, successors(m), primary, cache, threads, residency.primary, env);
    if (!a) {
      out.status = a.error();
      out.in_dependency = true;
      return out;
    }
    prim_src = std::move(*a);
    if (files.dtc) {
      auto b = FileSuccessors::open(rules, root, successors(m), Metric::DTC, cache, threads, residency.dtc, env);
      if (!b) {
        out.status = b.error();
        out.in_dependency = true;
        return out;
      }
      dtc_src = std::move(*b);
    }
  }
  std::vector<std::unique_ptr<SuccessorReader>> prim_rd(threads), dtc_rd(threads);
  for (int t = 0; t < threads; ++t) {
    prim_rd[t] = prim_src->reader();
    if (dtc_src) dtc_rd[t] = dtc_src->reader();
  }

  // This material's true codes by slot, for the materials checked next.
  std::shared_ptr<BigVector<std::uint16_t>> keep_prim, keep_dtc;
  if (residency.keep) {
    keep_prim = std::make_shared<BigVector<std::uint16_t>>(table_slots(L.index), 0);
    if (files.dtc) keep_dtc = std::make_shared<BigVector<std::uint16_t>>(table_slots(L.index), 0);
  }
  Level levels_held[2];
  for (Level& l : levels_held) {
    l.wdl.reserve(most);
    l.prim.reserve(most);
    if (files.dtc) l.dtc.reserve(most);
  }
  // Slot ranges of the fill: the largest block of the material's files.
  const std::uint64_t table = table_slots(L.index);
  std::uint64_t range = 1;
  for (const auto& f : own)
    if (f) range = std::max<std::uint64_t>(range, f->header().block_size);
  const std::int64_t ranges = static_cast<std::int64_t>((table + range - 1) / range);
  Level* cur = &levels_held[0];
  Level* above = &levels_held[1];
  const bool one_sided = (own[1] && own[1]->header().stored_side != StoredSide::Both) ||
                         (own[2] && own[2]->header().stored_side != StoredSide::Both);
  FirstError err;
  std::atomic<int> listed{0};
  // What info --stats counts (stats_tally.hpp), from the true values, one
  // tally per thread (a cache line apart).
  struct alignas(64) ThreadTally {
    StatsTally t;
  };
  std::vector<ThreadTally> tallies(static_cast<std::size_t>(threads));

  // Where level offset o of level p is in the table: its slot.
  auto slot_of = [&](int p, std::uint64_t o) {
    const std::uint64_t n = L.levels[p].size();
    const std::uint64_t si = o / K, side = si / n, i = si % n;
    return side * N + L.levels[p][i] * K + o % K;
  };
  // The true (primary, dtc) codes of q, a position of m reached by a quiet
  // move from level p; `config`: the men configuration of the position
  // moved from, which a king move keeps (no men rank to compute then).
  auto own_codes = [&](int p, Position q, bool king_move, std::uint64_t config, std::uint16_t& pc,
                       std::uint16_t& dc) {
    bool flipped = false;
    if (L.sym && q.side_to_move == Color::Black) {  // stored as its colour-reversed image
      q = q.flipped();
      flipped = true;
    }
    const int side = q.side_to_move == Color::White ? 0 : 1;
    if (!king_move || flipped) config = L.index.rank_men(q.men[0], q.men[1]);
    const int lv = L.level_of[config];
    assert(lv == p || lv == p + 1);
    const Level& src = lv == p ? *cur : *above;
    const std::uint64_t off = L.level_offset(side, config) + L.index.rank_kings(q.kings[0], q.kings[1], q.men[0] | q.men[1]);
    pc = src.prim[off];
    dc = files.dtc ? src.dtc[off] : 0;
  };

  for (int p = static_cast<int>(L.levels.size()) - 1; p >= 0 && !err.failed; --p) {
    std::swap(cur, above);  // the level filled last is now the one above
    const std::uint64_t n_slots = L.level_slots(p);
    cur->p = p;
    cur->wdl.resize(n_slots, 0);  // BigVector: resize(n) alone leaves new entries unset
    cur->prim.resize(n_slots, 0);
    if (files.dtc) cur->dtc.resize(n_slots, 0);

    // Fill: the files' entries, true values for draws and derived positions.
    // Work in slot ranges of the largest block, so that each block holding
    // slots of this level is decoded once (configurations of other levels
    // are skipped whole).
#pragma omp parallel num_threads(threads)
    {
      const int t = omp_get_thread_num();
      Cursor cursors[3];
      for (int f = 0; f < 3; ++f) cursors[f].file = own[f].get();
      MoveList caps;
      SlotCursor positions(L.index);
#pragma omp for schedule(dynamic, 1)
      for (std::int64_t r = 0; r < ranges; ++r) {
        if (err.failed.load(std::memory_order_relaxed)) continue;
        try {
          const std::uint64_t range_end = std::min<std::uint64_t>(table, (r + 1) * range);
          for (std::uint64_t s0 = r * range; s0 < range_end && !err.failed.load(std::memory_order_relaxed);) {
            // The configuration run holding slot s0: skipped whole when of another level.
            const std::uint64_t side = s0 / N, idx = s0 - side * N, config = idx / K;
            const std::uint64_t run_end = std::min(range_end, side * N + (config + 1) * K);
            if (L.level_of[config] != p) {
              s0 = run_end;
              continue;
            }
            const std::uint64_t base = L.level_offset(static_cast<int>(side), config) - config * K - side * N;
            for (std::uint64_t slot = s0; slot < run_end; ++slot) {
              const std::uint64_t o = slot + base;
              std::uint16_t code[3] = {0, 0, 0};
              for (int f = 0; f < 3; ++f)
                if (own[f])
                  if (Status st = cursors[f].at(slot, code[f]); !st.ok()) {
                    err.set(st, false);
                    break;
                  }
              if (err.failed.load(std::memory_order_relaxed)) break;
              cur->wdl[o] = static_cast<std::uint8_t>(code[0]);
              const Position& pos = positions.at(slot);
              if (generate_capture_moves_if_any(rules, pos, caps)) {  // is_derived
                cur->wdl[o] = kDerived;  // nothing stored to check
                // The oracle's search (value_oracle.hpp): the best capture;
                // the DTC follows from the WDL (capture_dtc).
                Value bp;
                for (std::size_t j = 0; j < caps.size(); ++j) {
                  const Position q = apply(pos, caps[j]);
                  const Value vp = move_value(Value::decode(prim_rd[t]->code(q)), primary, true);
                  if (j == 0 || better_value(vp, bp)) bp = vp;
                }
                cur->prim[o] = bp.encode();
                if (files.dtc) cur->dtc[o] = capture_dtc(bp.wdl).encode();
                if (keep_prim) (*keep_prim)[slot] = cur->prim[o];
                if (keep_dtc) (*keep_dtc)[slot] = cur->dtc[o];
                if (!prim_rd[t]->error().empty()) {  // dtc_rd is not read here
                  err.set(Error(prim_rd[t]->error()), true);
                  break;
                }
                continue;
              }
              if (one_sided && Value::decode(code[0]).wdl != Wdl::Draw) {
                if (own[1] && !own[1]->header().stores_slot(slot)) cur->wdl[o] |= kUnstoredDtw;
                if (own[2] && !own[2]->header().stores_slot(slot)) cur->wdl[o] |= kUnstoredDtc;
              }
              Value v;
              if (files.dtw) {
                (void)distance_value(code[0], code[1], v);  // a disagreement shows as a mismatch
                cur->prim[o] = v.encode();
              } else {
                cur->prim[o] = code[0];
              }
              if (files.dtc) {
                (void)distance_value(code[0], code[2], v);
                cur->dtc[o] = v.encode();
              }
              if (keep_prim) (*keep_prim)[slot] = cur->prim[o];
              if (keep_dtc) (*keep_dtc)[slot] = cur->dtc[o];
            }
            s0 = run_end;
          }
        } catch (const std::exception& e) {
          err.set(Error(m.name() + ": " + e.what(), ErrorCode::Io), false);
        }
      }
    }
    if (err.failed) break;

    // The value of stored position `pos` (slot, of level p) one ply from
    // its successors' true values (want: the primary metric; want_dtc when
    // there is a DTC file).  False when a successor file failed (err set).
    auto one_ply = [&](int t, const Position& pos, std::uint64_t slot, MoveList& moves, std::vector<std::uint16_t>& sd,
                       std::vector<std::uint16_t>& sc, Value& want, Value& want_dtc) {
      const std::uint64_t config = (slot >= N ? slot - N : slot) / K;
      generate_moves(rules, pos, moves);
      const std::size_t k = moves.size();
      assert(k == 0 || !moves[0].is_capture());
      sd.resize(k);
      sc.resize(k);
      for (std::size_t j = 0; j < k; ++j) {
        const Position q = apply(pos, moves[j]);
        if (moves[j].promotes) {  // another material (no capture here: see above)
          sd[j] = prim_rd[t]->code(q);
          sc[j] = files.dtc ? dtc_rd[t]->code(q) : 0;
        } else {
          const bool king_move = (pos.kings[idx(pos.side_to_move)] & bit(moves[j].from)) != 0;
          own_codes(p, q, king_move, config, sd[j], sc[j]);
        }
      }
      if (!prim_rd[t]->error().empty() || (files.dtc && !dtc_rd[t]->error().empty())) {
        err.set(Error(!prim_rd[t]->error().empty() ? prim_rd[t]->error() : dtc_rd[t]->error()), true);
        return false;
      }
      int best_loss = -1, worst_win = -1;
      bool draw = false;
      for (std::size_t j = 0; j < k; ++j) {
        const Value v = Value::decode(sd[j]);
        if (v.wdl == Wdl::Loss) best_loss = best_loss < 0 ? v.plies : std::min<int>(best_loss, v.plies);
        else if (v.wdl == Wdl::Win) worst_win = std::max<int>(worst_win, v.plies);
        else draw = true;
      }
      want = best_loss >= 0 ? Value::win(best_loss + 1)
             : draw         ? Value::draw()
             : k == 0       ? Value::loss(0)
                            : Value::loss(worst_win + 1);
      // DTC from one ply, given the WDL.
      want_dtc = Value::draw();
      if (files.dtc && want.wdl != Wdl::Draw) {
        int best = -1;
        for (std::size_t j = 0; j < k; ++j) {
          const Value v = Value::decode(sd[j]);
          const int d = moves[j].promotes ? 1 : Value::decode(sc[j]).plies + 1;
          if (want.wdl == Wdl::Win && v.wdl == Wdl::Loss) best = best < 0 ? d : std::min(best, d);
          if (want.wdl == Wdl::Loss) best = std::max(best, d);
        }
        want_dtc = want.wdl == Wdl::Win ? Value::win(best) : Value::loss(std::max(best, 0));
      }
      return true;
    };

    // The positions a one-side file leaves out: their distances one ply
    // from the stored side's (their successors by a quiet move have the
    // other side to move, stored; a promotion's are read like any
    // successor's).  The DTW and DTC files may keep different sides: a
    // position whose DTC alone is left out takes its successors' WDL from
    // their DTW values, some of which are left out too, so those are filled
    // first (sub-pass 0: every position whose DTW is left out, with its DTC
    // when that is left out as well; sub-pass 1: the DTC of the others).
    for (int sub = 0; one_sided && sub < 2 && !err.failed; ++sub) {
      (void)for_each_chunk(
          threads, n_slots, err, m,
          [&](int t, std::uint64_t o, PlyScratch& s, std::uint64_t&) {
            const std::uint8_t w = cur->wdl[o];
            if (w == kDerived || (w & (kUnstoredDtw | kUnstoredDtc)) == 0) return true;
            if (((w & kUnstoredDtw) != 0) != (sub == 0)) return true;
            const std::uint64_t slot = slot_of(p, o);
            Value want, want_dtc;
            if (!one_ply(t, s.position_at(L.index, slot), slot, s.moves, s.sd, s.sc, want, want_dtc)) return false;
            if (w & kUnstoredDtw) cur->prim[o] = want.encode();
            if (w & kUnstoredDtc) cur->dtc[o] = want_dtc.encode();
            if (keep_prim) (*keep_prim)[slot] = cur->prim[o];
            if (keep_dtc) (*keep_dtc)[slot] = cur->dtc[o];
            return true;
          },
          [](int, std::uint64_t, std::uint64_t) {});
    }
    if (err.failed) break;

    // Check: one ply from every stored position of the level.
    const std::uint64_t bad = for_each_chunk(
        threads, n_slots, err, m,
        [&](int t, std::uint64_t o, PlyScratch& s, std::uint64_t& count) {
          const std::uint64_t slot = slot_of(p, o);
          // Counted as the values are: a mismatch makes the table bad, and
          // its tally is then not used.
          tallies[static_cast<std::size_t>(t)].t.see(slot, slot < N ? 0 : 1, cur->wdl[o] == kDerived,
                                                      Value::decode(cur->prim[o]),
                                                      files.dtc ? Value::decode(cur->dtc[o]) : Value::draw(),
                                                      files.dtw, files.dtc);
          if (cur->wdl[o] == kDerived) return true;  // nothing stored to check
          const Position& pos = s.position_at(L.index, slot);
          Value want, want_dtc;
          if (!one_ply(t, pos, slot, s.moves, s.sd, s.sc, want, want_dtc)) return false;
          // A distance a one-side file leaves out was computed from this
          // ply above: only its WDL entry is checked.
          const std::uint8_t w = cur->wdl[o];
          const std::uint16_t got[3] = {static_cast<std::uint16_t>(w & kWdlBits), cur->prim[o],
                                        files.dtc ? cur->dtc[o] : std::uint16_t{0}};
          const std::uint16_t exp[3] = {want.wdl_only().encode(), want.encode(), want_dtc.encode()};
          const bool skip[3] = {false, !files.dtw || (w & kUnstoredDtw) != 0, !files.dtc || (w & kUnstoredDtc) != 0};
          for (int f = 0; f < 3; ++f) {
            if (got[f] == exp[f] || skip[f]) continue;
            ++count;
            if (mismatch && listed.fetch_add(1) < opts.max_listed) {
#pragma omp critical(damka_verify_list)
              mismatch(VerifyMismatch{m, std::string(metric_name(own_metrics[f])), to_fen(rules, pos),
                                      describe(got[f]), describe(exp[f])});
            }
          }
          return true;
        },
        [&](int t, std::uint64_t begin, std::uint64_t end) {
          done.fetch_add(end - begin, std::memory_order_relaxed);
          if (t == 0 && progress) progress();
        });
    out.mismatches += bad;
  }
  if (err.failed) {
    out.status = err.status;
    out.in_dependency = err.in_dependency;
    return out;
  }
  for (const ThreadTally& x : tallies) out.tally.merge(x.t);
  residency.kept_primary = std::move(keep_prim);
  residency.kept_dtc = std::move(keep_dtc);
  return out;
}

}  // namespace damka::verify_detail
