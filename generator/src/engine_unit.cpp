// The pass engine's inner work: solving one unit (engine.hpp) for every pass
// of a PassList, either by one thread (no atomics) or by a team of threads
// (an atomic frontier, for levels with fewer units than threads).
//
// Per pass, positions are resolved in increasing distance with buckets: a
// position becomes a win at d + 1 when a successor is finalised as a loss at
// d (or an exit says so), and a loss when its last in-unit successor is
// finalised as a win, at one more than the largest successor distance (or the
// worst exit, if that is larger).  The move graph's reversed edges, or
// without one the quiet king un-moves (for_each_unmove_index), give each
// finalised position's in-unit predecessors.  In the primary pass what is
// never resolved is a draw; a secondary pass measures inside the primary's
// result.
#include "engine_unit.hpp"

#include <omp.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cassert>
#include <cstdlib>
#include <cstring>
#include <new>

#include "damka/capture_stream.hpp"

namespace damka::engine_detail {
namespace {

template <bool Par>
struct Ops {
  static bool claim(std::uint16_t& code, std::uint16_t value) {
    if constexpr (Par) {
      std::uint16_t expect = kUnset;
      return std::atomic_ref<std::uint16_t>(code).compare_exchange_strong(expect, value);
    } else {
      if (code != kUnset) return false;
      code = value;
      return true;
    }
  }
  static bool is_set(const std::uint16_t& code) {
    if constexpr (Par)
      return std::atomic_ref<const std::uint16_t>(code).load(std::memory_order_relaxed) != kUnset;
    else
      return code != kUnset;
  }
  // Lowers q to v; whether it was above.
  static bool lower(std::uint16_t& q, std::uint16_t v) {
    if constexpr (Par) {
      std::atomic_ref<std::uint16_t> a(q);
      std::uint16_t old = a.load(std::memory_order_relaxed);
      while (old > v && !a.compare_exchange_weak(old, v)) {
      }
      return old > v;
    } else {
      if (q <= v) return false;
      q = v;
      return true;
    }
  }
  // Decrements and returns the new value.
  static std::uint8_t dec(std::uint8_t& x) {
    if constexpr (Par)
      return static_cast<std::uint8_t>(std::atomic_ref<std::uint8_t>(x).fetch_sub(1) - 1);
    else
      return --x;
  }
};

// A pass's arrays for one unit, as plain pointers (propagate).  The values
// live in the level's arrays: part 0 at the unit's offset[0], part 1 at
// offset[1]; prim: the primary pass's (WDL).
struct PassArrays {
  std::uint8_t *in, *flags, *pending;
  std::uint16_t* queued;
  const std::uint16_t *win_exit, *loss_exit;
  std::uint16_t *base0, *base1;
  const std::uint16_t *prim0, *prim1;
  std::uint64_t K;
  PassArrays(UnitSolver::Scratch& s, LevelArrays& cur, const Unit& u, std::uint64_t k, int pass)
      : in(s.in.data()),
        flags(s.flags.data()),
        pending(s.pending.data()),
        queued(s.queued.data()),
        win_exit(s.win_exit[pass].data()),
        loss_exit(s.loss_exit[pass].data()),
        base0(cur.codes[pass].data() + u.offset[0]),
        base1(cur.codes[pass].data() + u.offset[1]),
        prim0(cur.codes[0].data() + u.offset[0]),
        prim1(cur.codes[0].data() + u.offset[1]),
        K(k) {}
  std::uint16_t& code(std::uint64_t l) const { return l < K ? base0[l] : base1[l - K]; }
  Wdl wdl(std::uint64_t l) const { return Value::decode(l < K ? prim0[l] : prim1[l - K]).wdl; }
};

}  // namespace

UnitSolver::UnitSolver(const Rules& rules, const Layout& layout, const PassList& passes,
                       std::function<void()> before_unit, std::uint64_t large_unit)
    : r_(rules), L_(layout), passes_(passes), before_unit_(std::move(before_unit)), large_unit_(large_unit) {}

Position UnitSolver::position(const Unit& u, std::uint64_t l) const {
  MaterialIndex::LastWhiteKings none;  // nothing kept
  return position(u, l, none);
}

Position UnitSolver::position(const Unit& u, std::uint64_t l, MaterialIndex::LastWhiteKings& last) const {
  const int part = l >= L_.K ? 1 : 0;
  const std::uint64_t k = l - (part ? L_.K : 0);
  Position p;
  p.men[0] = u.wm[part];
  p.men[1] = u.bm[part];
  L_.index.unrank_kings(k, p.men[0] | p.men[1], p.kings[0], p.kings[1], last);
  p.side_to_move = u.side[part];
  return p;
}

void UnitSolver::man_steps(const Unit& u, ManSteps& out, MoveList& moves) const {
  // Each step's configuration first, its level and place in it fetched;
  // then the offsets.  A men-only unit is two positions, so this runs once
  // for every two: its two reads of the layout's configuration arrays
  // (tens of MB) were 70% of man_steps' samples, 10% of 3Mv3M's, each
  // step's misses one after another.
  int after_side[2] = {0, 0};  // the side to move after a part's steps, as the level above stores it
  for (int part = 0; part < u.parts; ++part) {
    Position p;  // the part's men, no kings: a man step needs only its target free
    p.men[0] = u.wm[part];
    p.men[1] = u.bm[part];
    p.side_to_move = u.side[part];
    out.flip[part] = L_.sym && opposite(p.side_to_move) == Color::Black;
    std::vector<ManSteps::Step>& steps = out.steps[part];
    steps.clear();
    generate_quiet_man_moves(p, moves);
    for (const Move& mv : moves) {
      // Built in place: a Step built on the stack and copied in was read
      // back with wide loads right after its narrow stores (a stall).
      ManSteps::Step& st = steps.emplace_back();
      st.to = bit(mv.to);
      st.between = (bit(std::max(mv.from, mv.to)) - 1) & ~((bit(std::min(mv.from, mv.to)) << 1) - 1);
      st.move = mv;
      if (!mv.promotes) {
        Position q = apply(p, mv);
        if (out.flip[part]) q = q.flipped();
        st.men_after = q.men[0] | q.men[1];
        after_side[part] = q.side_to_move == Color::White ? 0 : 1;
        const std::uint64_t config = L_.index.rank_men(q.men[0], q.men[1]);
        __builtin_prefetch(&L_.level_of[config]);
        __builtin_prefetch(&L_.pos[config]);
        st.offset = config;  // made the offset below
      }
    }
  }
  for (int part = 0; part < u.parts; ++part)
    for (ManSteps::Step& st : out.steps[part])
      if (!st.move.promotes) st.offset = L_.level_offset(after_side[part], st.offset);
}

// Moves that leave the unit: their values come from the level above or from
// finished tables.
void UnitSolver::add_exit(const Position& p, const Move& mv, Exits& ex, SuccessorReader& rd) const {
  assert(mv.is_capture() || mv.promotes);
  const std::uint8_t kind = (mv.is_capture() ? kExitCapture : 0) | (mv.promotes ? kExitPromotion : 0);
  const std::uint16_t code[kMaxPasses] = {rd.code(apply(p, mv)), 0, 0};  // secondaries restart here: only the WDL counts
  note_exit(code, kind, ex);
}

bool UnitSolver::won_in_one(const Exits& ex) const {
  for (int i = 0; i < passes_.size(); ++i)
    if (ex.win[i] != 1) return false;
  return true;
}

bool UnitSolver::add_capture_exits(const Position& p, MoveList& moves, Exits& ex, SuccessorReader& rd) const {
  return generate_captures_until(r_, p, moves, [&](const Move& mv) {
    add_exit(p, mv, ex, rd);
    return won_in_one(ex);
  });
}

void UnitSolver::add_man_exit(std::uint64_t at, Exits& ex, const LevelArrays& next) const {
  std::uint16_t code[kMaxPasses] = {0, 0, 0};
  for (int i = 0; i < passes_.size(); ++i) code[i] = passes_.specs[i].exit_code(kExitManMove, next.codes[i][at]);
  note_exit(code, kExitManMove, ex);
}

void UnitSolver::note_exit(const std::uint16_t* code, std::uint8_t kind, Exits& ex) const {
  const Wdl w = Value::decode(code[0]).wdl;
  if (w == Wdl::Draw) {
    ex.flags |= kDrawExit;
    return;
  }
  for (int i = 0; i < passes_.size(); ++i) {
    const auto c =
        static_cast<std::uint16_t>((passes_.specs[i].restarts & kind) ? 1 : Value::decode(code[i]).plies + 1);
    if (w == Wdl::Loss)
      ex.win[i] = std::min(ex.win[i], c);
    else
      ex.loss[i] = std::max(ex.loss[i], c);
  }
}

template <bool Edges>
void UnitSolver::gather(const Unit& u, std::uint64_t l, const Position& p, Scratch& s,
                        BigVector<std::uint32_t>& fwd, SuccessorReader& rd, const LevelArrays* next,
                        MoveList& moves, std::uint16_t* counts) const {
  const int part = l >= L_.K ? 1 : 0;
  const int np = passes_.size();
  std::uint8_t in = 0;
  Exits ex;
  std::uint8_t& flags = ex.flags;
  bool man_moves = false;
  if (add_capture_exits(p, moves, ex, rd)) {
    flags |= kCaptureFlag;
  } else {
    // Quiet man moves leave the unit (s.man_steps: ranked without building
    // the position, but for promotions).
    const Bitboard kings = p.kings[0] | p.kings[1];
    const bool flip = s.man_steps.flip[part];
    const Bitboard k0 = flip ? rotate180(p.kings[1]) : p.kings[0], k1 = flip ? rotate180(p.kings[0]) : p.kings[1];
    // The kings' rank among this part's men as the level above turns them:
    // l's own (unturned), else ranked once at the first step that needs it.
    constexpr std::uint64_t kNotYet = ~std::uint64_t{0};
    std::uint64_t own = flip ? kNotYet : l - (part ? L_.K : 0);
    bool won = false;  // won_in_one(ex): the other exits are not read
    for (const ManSteps::Step& st : s.man_steps.steps[part]) {
      if (st.to & kings) continue;
      man_moves = true;
      if (won) continue;
      if (st.move.promotes) {
        add_exit(p, st.move, ex, rd);
      } else {
        assert(next != nullptr);
        // A step with no king between its squares leaves every king's place
        // among the free squares, so their rank (Step::between).
        std::uint64_t rank;
        if (kings & st.between) {
          rank = L_.index.rank_kings(k0, k1, st.men_after);
        } else {
          if (own == kNotYet) own = L_.index.rank_kings(k0, k1, rotate180(p.men[0] | p.men[1]));
          rank = own;
        }
        add_man_exit(st.offset + rank, ex, *next);
      }
      won = won_in_one(ex);
    }
    // Quiet king moves stay in the unit (the other part, or this one when
    // the unit has one): ranked here without building the position.  A
    // symmetric material: White moved; stored colour-reversed (the board
    // turned), White to move, so the mover's kings are Black's.
    const int mover = idx(p.side_to_move);
    const Bitboard occ = p.occupied();
    if constexpr (Edges) {
      const int to_part = u.parts == 2 ? 1 - part : 0;
      const Bitboard fixed = L_.sym ? rotate180(p.kings[1 - mover]) : p.kings[1 - mover];
      for_each_king_step_index(p.kings[mover], fixed, occ, u.wm[to_part] | u.bm[to_part], L_.sym,
                               !L_.sym && mover == 0, to_part ? L_.K : 0, [&](std::uint64_t lt) {
                                 fwd.push_back(static_cast<std::uint32_t>(lt));
                                 if (counts) ++counts[lt];
                                 ++in;
                               });
    } else {
      for (Bitboard b = p.kings[mover]; b; b &= b - 1)
        in = static_cast<std::uint8_t>(in + popcount(king_step_targets(r_, lsb(b), occ)));
    }
    if (!man_moves && in == 0) flags |= kNoMoves;
  }
  s.in[l] = in;
  s.flags[l] = flags;
  if constexpr (Edges) s.fwd_off[l + 1] = static_cast<std::uint32_t>(fwd.size());
  for (int i = 0; i < np; ++i) {
    s.win_exit[i][l] = ex.win[i];
    s.loss_exit[i][l] = ex.loss[i];
  }
}

template <bool Edges>
void UnitSolver::gather_all(const Unit& u, Scratch& s, SuccessorReader& rd, const LevelArrays* next,
                            MoveList& moves) const {
  const std::uint64_t n = u.parts * L_.K;
  // Each target's count of edges goes to s.queued (free until the passes
  // start): 2 bytes a position in the caches, not rev_off's 4 (the
  // increment was a third of gather's samples in 2K1Mv2K1M, most of them
  // waiting for the line).
  std::uint16_t* counts = nullptr;
  if constexpr (Edges) {
    std::fill_n(s.queued.begin(), n, std::uint16_t{0});
    counts = s.queued.data();
  }
  walk_positions(u, 0, n, [&](std::uint64_t l, const Position& p) {
    gather<Edges>(u, l, p, s, s.fwd, rd, next, moves, counts);
  });
}

void UnitSolver::Scratch::resize(std::uint64_t n, int passes) {
  each_position_array(*this, [&](auto& v, int pass) {
    if (pass < passes) v.resize(n);
  });
}

namespace {
// Keeps no more than `most` elements of v in memory: a huge array's pages
// beyond them go back to the system (its capacity, virtual, stays, so a
// use up to it takes no new allocation); a smaller array, or one of which
// nothing is kept, is freed.  Its contents are left unspecified.
template <class T>
void cap(BigVector<T>& v, std::uint64_t most) {
  const std::size_t bytes = v.capacity() * sizeof(T), keep = most * sizeof(T);
  if (bytes <= keep) return;
  if (most == 0 || bytes < kHugeFrom)
    BigVector<T>().swap(v);
  else
    huge_release_after(v.data(), bytes, keep);
}
template <class T>
std::uint64_t resident(const BigVector<T>& v) {
  return huge_resident(v.data(), v.capacity() * sizeof(T));
}
}  // namespace

void UnitSolver::Scratch::trim(std::uint64_t n, int passes, std::uint64_t edges_per_position, bool graph) {
  each_position_array(*this, [&](auto& v, int pass) { cap(v, pass < passes ? n : 0); });
  buckets.clear();
  while (spare_entries > spare_limit(n)) {
    spare_entries -= spare.back().capacity();
    spare.pop_back();
  }
  cap(fwd, graph ? n * edges_per_position : 0);
  cap(rev, graph ? n * edges_per_position : 0);
  cap(fwd_off, graph ? n + 1 : 0);
  cap(rev_off, graph ? n + 1 : 0);
  fwd_chunks.clear();
  fwd_chunks.shrink_to_fit();
}

std::uint64_t UnitSolver::Scratch::bytes() const {
  std::uint64_t b = resident(fwd) + resident(fwd_off) + resident(rev) + resident(rev_off);
  each_position_array(*this, [&](const auto& v, int) { b += resident(v); });
  for (const auto& c : fwd_chunks) b += resident(c);
  return b + spare_entries * sizeof(std::uint64_t);
}

std::uint64_t UnitSolver::scratch_bytes(std::uint64_t unit_positions, int passes, std::uint64_t edges_per_position) {
  // in, flags, pending (1 each), queued (2), exits (4 per pass), buckets
  // (~8), and for serial units the move graph: two offsets and two entries
  // per edge (4 bytes each).
  const std::uint64_t graph = edges_per_position ? 8 + 8 * edges_per_position : 0;
  return unit_positions * (5 + 4 * static_cast<std::uint64_t>(passes) + 8 + graph);
}

template <bool Par, bool Edges>
void UnitSolver::propagate(const Unit& u, Scratch& s, LevelArrays& cur, int pass, int threads) const {
  using O = Ops<Par>;
  const MetricSpec& spec = passes_.specs[pass];
  const bool sec = spec.follows_wdl;
  const std::uint64_t n = u.parts * L_.K;
  // The arrays a pass reads and writes, as plain pointers.  The loops that
  // store to them (start, process with its visits) copy them into locals of
  // their own (`const PassArrays a = arrays;`) whose address is never taken:
  // a store to a byte array (pending, flags) may alias any object whose
  // address escaped, so pointers read through `s` or through a lambda's
  // captures were loaded again after every such store (start, per position
  // and pass, was a call doing just that).
  const PassArrays arrays{s, cur, u, L_.K, pass};
  // A unit whose arrays outgrow the caches (kings-heavy materials: millions
  // of positions, tens of millions of edges): its scattered reads are
  // fetched ahead.  A small unit stays in the caches, where the fetches
  // would only cost instructions.
  const bool large = n >= large_unit_;

  std::vector<std::vector<std::uint64_t>>& buckets = s.buckets;
  buckets.clear();
  // One thread (!Par): a new bucket takes an emptied one's capacity
  // (s.spare), and a bucket done goes back there while the spares hold at
  // most n entries (what the plan gives the buckets); a team's threads push
  // into lists of their own, grown afresh.
  std::vector<std::vector<std::uint64_t>>& spare = s.spare;
  auto push = [&](std::vector<std::vector<std::uint64_t>>& b, std::uint64_t d, std::uint64_t e) {
    if (d >= b.size()) b.resize(d + 1);
    std::vector<std::uint64_t>& v = b[d];
    if (!Par && v.capacity() == 0 && !spare.empty()) {
      v = std::move(spare.back());
      spare.pop_back();
      s.spare_entries -= v.capacity();
    }
    v.push_back(e);
  };
  auto recycle = [&](std::vector<std::uint64_t>& v) {
    if constexpr (!Par) {
      if (s.spare_entries + v.capacity() <= Scratch::spare_limit(n)) {
        s.spare_entries += v.capacity();
        v.clear();
        spare.push_back(std::move(v));
      }
    }
  };
  // Starting entries of positions [from, to): those without moves (lost in
  // 0), and those whose best exit already decides them.
  auto start = [&](std::uint64_t from, std::uint64_t to, std::vector<std::vector<std::uint64_t>>& out) {
    const PassArrays a = arrays;
    for (std::uint64_t l = from; l < to; ++l) {
      std::uint16_t& code = a.code(l);
      a.pending[l] = a.in[l];
      a.queued[l] = kUnset;
      code = kUnset;
      const std::uint8_t f = a.flags[l];
      if (f & kNoMoves) {
        push(out, 0, l * 2);
        continue;
      }
      const Wdl w = sec ? a.wdl(l) : Wdl::Draw;
      if (sec && w == Wdl::Draw) {
        code = 0;
        continue;
      }
      const std::uint16_t win = a.win_exit[l];
      if (win != kUnset && (!sec || w == Wdl::Win)) {
        push(out, win, l * 2 + 1);
        a.queued[l] = win;
      } else if (a.in[l] == 0 && !(f & kDrawExit) && (!sec || w == Wdl::Loss)) {
        push(out, a.loss_exit[l], l * 2);
      }
    }
  };
  // A team's pass: step(i, out) for i < count on every thread, each thread
  // into bucket lists of its own, then appended to `buckets` in thread order.
  auto team_pass = [&](std::uint64_t count, auto&& step) {
    std::vector<std::vector<std::vector<std::uint64_t>>> outs(static_cast<std::size_t>(threads));
    std::atomic<bool> failed{false};
#pragma omp parallel num_threads(threads)
    {
      auto& mine = outs[static_cast<std::size_t>(omp_get_thread_num())];
#pragma omp for schedule(dynamic, 1024)
      for (std::int64_t i = 0; i < static_cast<std::int64_t>(count); ++i) {
        if (failed.load(std::memory_order_relaxed)) continue;
        try {
          step(static_cast<std::uint64_t>(i), mine);
        } catch (...) {  // an exception must not leave a parallel region
          failed = true;
        }
      }
    }
    if (failed) throw std::bad_alloc();  // the only exception a step can raise (push_back)
    for (auto& o : outs)
      for (std::size_t at = 0; at < o.size(); ++at)
        if (!o[at].empty()) {
          if (at >= buckets.size()) buckets.resize(at + 1);
          buckets[at].insert(buckets[at].end(), o[at].begin(), o[at].end());
        }
  };
  // A team: the whole unit is this level's work, so no pass over it may
  // leave the other threads waiting.
  if (Par && threads > 1)
    team_pass(n, [&](std::uint64_t l, auto& out) { start(l, l + 1, out); });
  else
    start(0, n, buckets);

  // The predecessors' entries are scattered over the unit (a kings-only
  // team's unit is the whole table): their cache lines are fetched ahead,
  // so the misses overlap instead of stalling each visit in turn (4Kv2K
  // spent most of its time on the first two loads of visit).  What a visit
  // of a predecessor lp of a won (win) or lost position reads:
  auto fetch = [&](const PassArrays& a, std::uint64_t lp, bool win) __attribute__((always_inline)) {
    if (!Edges) __builtin_prefetch(&a.flags[lp]);
    __builtin_prefetch(&a.code(lp));
    if (sec) __builtin_prefetch(lp < a.K ? &a.prim0[lp] : &a.prim1[lp - a.K]);
    if (win)
      __builtin_prefetch(&a.pending[lp]);
    else
      __builtin_prefetch(&a.queued[lp]);
  };
  // Finalises entry e at distance d; new entries go to `out`.  `fetched`:
  // the caller has fetched its predecessors' entries (the pipeline below,
  // with the graph); else a team's visits fetch them first.
  auto process = [&](std::uint64_t e, std::uint64_t d, std::vector<std::vector<std::uint64_t>>& out,
                     bool fetched = false) {
    const PassArrays a = arrays;
    const std::uint64_t l = e >> 1;
    const bool win = e & 1;
    const std::uint16_t value = (win ? Value::win(static_cast<int>(d)) : Value::loss(static_cast<int>(d))).encode();
    if (!O::claim(a.code(l), value)) return;
    const auto next = static_cast<std::uint16_t>(d + 1);
    // Always inlined: as a call (GCC left it one) each visit reloaded the
    // captured arrays through the closure; the call was ~11% of the pass.
    auto visit = [&](std::uint64_t lp) __attribute__((always_inline)) {
      // A capture position has no quiet moves, so no edge comes from one:
      // only un-moves (no graph) reach them (not asserted: the load is the
      // cost saved).
      if ((!Edges && (a.flags[lp] & kCaptureFlag)) || O::is_set(a.code(lp))) return;
      if (!win) {
        // pp moves into a lost position: a win in d + 1 (if it keeps the win).
        if (sec && a.wdl(lp) != Wdl::Win) return;
        if (O::lower(a.queued[lp], next)) push(out, next, lp * 2 + 1);
      } else {
        if (O::dec(a.pending[lp]) != 0) return;
        if (sec ? a.wdl(lp) != Wdl::Loss : (a.win_exit[lp] != kUnset || (a.flags[lp] & kDrawExit))) return;
        push(out, std::max<std::uint64_t>(next, a.loss_exit[lp]), lp * 2);
      }
    };
    if constexpr (Edges) {
      const std::uint32_t first = s.rev_off[l], last = s.rev_off[l + 1];
      const std::uint32_t* const rev = s.rev.data();
      if (Par && !fetched)
        for (std::uint32_t e = first; e < last; ++e) fetch(a, rev[e], win);
      for (std::uint32_t e = first; e < last; ++e) visit(rev[e]);
    } else {
      std::array<std::uint64_t, 32> batch;
      std::size_t held = 0;
      for_each_unmove_index(u, position(u, l), [&](std::uint64_t lp) {
        if (held == batch.size()) {
          for (const std::uint64_t lq : batch) visit(lq);
          held = 0;
        }
        batch[held++] = lp;
        fetch(a, lp, win);
      });
      for (std::size_t i = 0; i < held; ++i) visit(batch[i]);
    }
  };

  for (std::uint64_t d = 0; d < buckets.size(); ++d) {
    std::vector<std::uint64_t> current = std::move(buckets[d]);
    buckets[d] = {};
    if (current.empty()) continue;  // never pushed to: it has no capacity to keep
    if constexpr (Par) {
      if (current.size() > 4096 && threads > 1) {
        team_pass(current.size(), [&](std::uint64_t i, auto& out) { process(current[i], d, out); });
        continue;
      }
    }
    if (!large) {
      for (std::uint64_t e : current) process(e, d, buckets);
      recycle(current);
      continue;
    }
    // A large unit: a pipeline over the bucket's entries.  The entry
    // kList ahead has its value and its predecessor list's bounds fetched,
    // the one kEdges ahead its predecessor list, and the one kPreds ahead
    // its predecessors' entries, while this one is processed (units time
    // of 4K1Mv1K on one thread: -19%; 5K1Mv1K on two: -10%; 8/4/1 and
    // 24/12/4 measured no better).  Without the graph, process() fetches each
    // batch of un-moves itself.
    constexpr std::size_t kList = 16, kEdges = 8, kPreds = 2;
    const std::size_t size = current.size();
    auto fetch_preds = [&](std::size_t j) {
      if constexpr (Edges) {
        const PassArrays a = arrays;
        const std::uint64_t lj = current[j] >> 1;
        for (std::uint32_t e = s.rev_off[lj]; e < s.rev_off[lj + 1]; ++e) fetch(a, s.rev[e], current[j] & 1);
      }
    };
    for (std::size_t j = 0; j < std::min(size, kPreds); ++j) fetch_preds(j);
    for (std::size_t i = 0; i < size; ++i) {
      if (i + kList < size) {
        const std::uint64_t la = current[i + kList] >> 1;
        __builtin_prefetch(&arrays.code(la));
        if constexpr (Edges) __builtin_prefetch(&s.rev_off[la]);
      }
      if constexpr (Edges)
        if (i + kEdges < size) __builtin_prefetch(&s.rev[s.rev_off[current[i + kEdges] >> 1]]);
      if (i + kPreds < size) fetch_preds(i + kPreds);
      process(current[i], d, buckets, /*fetched=*/true);
    }
    recycle(current);
  }
  // Never resolved: a draw (a secondary pass must resolve every won or lost
  // position its primary did).
  bool unresolved = false;
  auto finish = [&](std::uint64_t l) { return finish_code(arrays.code(l), sec, spec.has_distance); };
  if constexpr (Par) {
#pragma omp parallel for num_threads(threads) schedule(static) reduction(|| : unresolved)
    for (std::int64_t l = 0; l < static_cast<std::int64_t>(n); ++l)
      unresolved = finish(static_cast<std::uint64_t>(l)) || unresolved;
  } else {
    for (std::uint64_t l = 0; l < n; ++l) unresolved = finish(l) || unresolved;
  }
  if (unresolved) inconsistent_ = true;
}

void UnitSolver::build_predecessors(Scratch& s, std::uint64_t n, std::uint64_t chunk, int threads, bool counted) {
  // Position p's targets: fwd_of(p)[begin_of(p) .. fwd_off[p + 1]).
  auto fwd_of = [&](std::uint64_t p) -> const BigVector<std::uint32_t>& {
    return chunk == 0 ? s.fwd : s.fwd_chunks[p / chunk];
  };
  auto begin_of = [&](std::uint64_t p) -> std::uint32_t {
    return chunk != 0 && p % chunk == 0 ? 0 : s.fwd_off[p];
  };
  // Each thread owns the targets [lo, hi) and scans every edge (by
  // position, backwards when it fills): a target's predecessors are listed
  // in increasing order whatever the threads, and no two threads write one
  // entry.  Every thread reads all the edges (sequentially); the scattered
  // writes, the cost, are shared, each into a range a 1/threads of the unit.
  // One thread (a unit of a level solved by units, often tiny) calls the
  // same bodies for [0, n) and enters no parallel region (one per unit made
  // men-only materials several times slower).  Allocations happen between
  // the regions (an exception must not leave one).
  const int T = std::max(threads, 1);
  auto each_range = [&](auto&& body) {
    if (T == 1) return body(std::uint64_t{0}, n);
#pragma omp parallel num_threads(T)
    {
      const auto t = static_cast<std::uint64_t>(omp_get_thread_num()), all = static_cast<std::uint64_t>(T);
      body(n * t / all, n * (t + 1) / all);
    }
  };
  // Each target's count, then where its list ends; the lists are filled
  // from their ends, so that every rev_off[q] ends where q's list starts:
  // no cursor array beside it (a fresh one of 4 bytes a position per unit
  // was about a fifth of this function's samples in a 7-piece run, the
  // kernel zeroing its pages; the run's time did not measurably change).
  if (counted) {
    s.rev_off.resize(n + 1);
    std::copy_n(s.queued.begin(), n, s.rev_off.begin());
    s.rev_off[n] = 0;
  } else {
    s.rev_off.assign(n + 1, 0);
    each_range([&](std::uint64_t lo, std::uint64_t hi) {
      auto of = [&](const BigVector<std::uint32_t>& edges) {
        for (std::uint32_t q : edges)
          if (q >= lo && q < hi) ++s.rev_off[q];
      };
      if (chunk == 0)
        of(s.fwd);
      else
        for (const auto& c : s.fwd_chunks) of(c);
    });
  }
  for (std::uint64_t l = 1; l < n; ++l) s.rev_off[l] += s.rev_off[l - 1];
  if (n > 0) s.rev_off[n] = s.rev_off[n - 1];
  s.rev.resize(s.rev_off[n]);
  each_range([&](std::uint64_t lo, std::uint64_t hi) {
    for (std::uint64_t p = n; p-- > 0;) {
      const BigVector<std::uint32_t>& f = fwd_of(p);
      for (std::uint32_t e = s.fwd_off[p + 1], first = begin_of(p); e > first;) {
        const std::uint32_t q = f[--e];
        if (q >= lo && q < hi) s.rev[--s.rev_off[q]] = static_cast<std::uint32_t>(p);
      }
    }
  });
}

void UnitSolver::record_stored(const Unit& u, const Scratch& s, LevelArrays& cur) const {
  if (cur.derived.empty()) return;
  // A word's 16 flags at a time (a loop the compiler turns into a compare
  // and a mask of the vector's lanes).  A word at the edge of a part may be
  // shared with a unit another thread is solving: an atomic AND there; the
  // words within a part are this unit's alone (a plain AND: the atomic one
  // per 16 positions was most of this function's 1% of a whole -n 6).
  auto stored = [&](std::uint64_t from, int count) {  // bit j: s.flags[from + j] without a capture
    std::uint16_t bits = 0;
    for (int j = 0; j < count; ++j)
      bits |= static_cast<std::uint16_t>((s.flags[from + static_cast<std::uint64_t>(j)] & kCaptureFlag) == 0) << j;
    return bits;
  };
  auto clear = [&](std::uint64_t word, std::uint16_t bits) {  // a word at an edge
    if (bits != 0) std::atomic_ref<std::uint16_t>(cur.derived[word]).fetch_and(static_cast<std::uint16_t>(~bits));
  };
  for (int part = 0; part < u.parts; ++part) {
    const std::uint64_t first = u.offset[part], last = first + L_.K, local = part ? L_.K : 0;
    std::uint64_t at = first;
    if (const auto head = static_cast<int>(std::min<std::uint64_t>(last - at, (16 - at % 16) % 16)); head > 0) {
      clear(at / 16, static_cast<std::uint16_t>(stored(local, head) << (at % 16)));
      at += static_cast<std::uint64_t>(head);
    }
    for (; at + 16 <= last; at += 16)
      cur.derived[at / 16] &= static_cast<std::uint16_t>(~stored(local + (at - first), 16));
    if (at < last) clear(at / 16, stored(local + (at - first), static_cast<int>(last - at)));
  }
}

void UnitSolver::solve_serial(const Unit& u, Scratch& s, SuccessorReader& rd, const LevelArrays* next,
                              LevelArrays& cur, MoveList& moves, bool edges) const {
  const std::uint64_t n = u.parts * L_.K;
  if (before_unit_) before_unit_();
  s.resize(n, passes_.size());
  man_steps(u, s.man_steps, moves);
  if (!edges) {
    gather_all<false>(u, s, rd, next, moves);
    record_stored(u, s, cur);
    for (int i = 0; i < passes_.size(); ++i) propagate<false, false>(u, s, cur, i, 1);
    return;
  }
  s.fwd.clear();
  s.fwd.reserve(n * planned_edges_per_position(L_.m));  // virtual: only the pages written count
  // gather writes every entry but the first (no fill: a memset of the unit's
  // offsets each time was wasted).
  s.fwd_off.resize(n + 1);
  s.fwd_off[0] = 0;
  gather_all<true>(u, s, rd, next, moves);  // counts each target's edges in s.queued
  record_stored(u, s, cur);
  build_predecessors(s, n, 0, 1, /*counted=*/true);
  for (int i = 0; i < passes_.size(); ++i) propagate<false, true>(u, s, cur, i, 1);
}

void UnitSolver::solve_parallel(const Unit& u, Scratch& s, std::span<const std::unique_ptr<SuccessorReader>> readers,
                                const LevelArrays* next, LevelArrays& cur, bool edges, std::string& error) const {
  const int threads = static_cast<int>(readers.size());
  assert(threads >= 1);
  const std::uint64_t n = u.parts * L_.K;
  s.resize(n, passes_.size());
  {
    MoveList moves;
    man_steps(u, s.man_steps, moves);
  }
  // With edges: positions in chunks of consecutive positions, each chunk's
  // edges in a vector of its own (so the team needs no shared list), and
  // fwd_off relative to the chunk; build_predecessors reads them in place.
  const std::uint64_t chunk =
      std::max<std::uint64_t>(4096, (n + 8 * static_cast<std::uint64_t>(threads) - 1) / (8 * static_cast<std::uint64_t>(threads)));
  const std::uint64_t chunks = (n + chunk - 1) / chunk;
  if (edges) {
    s.fwd.clear();
    s.fwd_off.resize(n + 1);  // gather writes every entry but the first
    s.fwd_off[0] = 0;
    s.fwd_chunks.resize(chunks);
    for (auto& c : s.fwd_chunks) c.clear();
  }
  std::atomic<bool> failed{false};
#pragma omp parallel num_threads(threads)
  {
    MoveList moves;
    SuccessorReader& rd = *readers[static_cast<std::size_t>(omp_get_thread_num())];
    if (edges) {
#pragma omp for schedule(dynamic, 1)
      for (std::int64_t c = 0; c < static_cast<std::int64_t>(chunks); ++c) {
        guarded(failed, error, [&] {
          if (before_unit_) before_unit_();
          BigVector<std::uint32_t>& fwd = s.fwd_chunks[static_cast<std::size_t>(c)];
          const std::uint64_t first = static_cast<std::uint64_t>(c) * chunk, last = std::min(n, first + chunk);
          fwd.reserve((last - first) * planned_edges_per_position(L_.m));
          walk_positions(u, first, last,
                         [&](std::uint64_t l, const Position& p) { gather<true>(u, l, p, s, fwd, rd, next, moves); });
        });
      }
    } else {
      constexpr std::uint64_t kPart = 4096;  // positions a thread takes at a time
#pragma omp for schedule(dynamic, 1)
      for (std::int64_t c = 0; c < static_cast<std::int64_t>((n + kPart - 1) / kPart); ++c) {
        guarded(failed, error, [&] {
          if (before_unit_) before_unit_();
          const std::uint64_t first = static_cast<std::uint64_t>(c) * kPart;
          walk_positions(u, first, std::min(n, first + kPart), [&](std::uint64_t l, const Position& p) {
            gather<false>(u, l, p, s, s.fwd, rd, next, moves);
          });
        });
      }
    }
  }
  if (failed) return;
  record_stored(u, s, cur);
  if (edges) {
    build_predecessors(s, n, chunk, threads);
    for (auto& c : s.fwd_chunks) c = {};
    for (int i = 0; i < passes_.size(); ++i) propagate<true, true>(u, s, cur, i, threads);
    return;
  }
  for (int i = 0; i < passes_.size(); ++i) propagate<true, false>(u, s, cur, i, threads);
}


}  // namespace damka::engine_detail
