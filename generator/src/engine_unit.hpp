// Private to the engine: solving one unit (see engine_unit.cpp).
#pragma once

#include <algorithm>
#include <atomic>
#include <cassert>
#include <functional>
#include <memory>
#include <new>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "damka/huge_pages.hpp"
#include "damka/king_walk.hpp"
#include "damka/movegen.hpp"
#include "engine_layout.hpp"

namespace damka::engine_detail {

// The move graph's edges per position that the memory plan allows for (an
// upper estimate: 9 quiet moves per king of the side to move; a unit holds
// as many positions with White to move as with Black).  Real tables have
// about a third of it: a graph of Russian 5K1Mv1K's 8.8M-position units
// adds 0.73 GB to the peak RSS, about 9 edges a position of the 27
// planned.  (Counting the side with more kings, 45 there, left that
// material one graph for two threads at --memory 10G, and its units took
// 49.7 s instead of 31.9.)  Graphs reserve it up front: the growth of a
// vector of hundreds of MB re-faulted and copied it each time.
inline std::uint64_t planned_edges_per_position(const Material& m) {
  return (static_cast<std::uint64_t>(m.wk + m.bk) * 9 + 1) / 2;
}

// A position's facts that its unit's passes need (UnitSolver::Scratch::flags).
enum Flag : std::uint8_t { kNoMoves = 1, kCaptureFlag = 2, kDrawExit = 4 };

// What a worker that ran out of memory reports (build_material adds the plan).
// A pass's last step for one position (propagate and solve_sweep): never
// decided is a draw, and a pass without distances keeps the WDL only.  A
// secondary pass must decide every won or lost position its primary did:
// returns true where one is left undecided (the tables are inconsistent).
inline bool finish_code(std::uint16_t& c, bool secondary, bool has_distance) {
  if (secondary) return c == kUnset;
  if (c == kUnset) c = Value::draw().encode();
  if (!has_distance) c = Value::decode(c).wdl_only().encode();
  return false;
}

inline constexpr std::string_view kWorkerOutOfMemory = "out of memory in a worker";

// Runs f() for one item of a parallel loop: an exception must not leave an
// OpenMP region, so the first one is kept in `error` (bad_alloc as
// kWorkerOutOfMemory) and `failed` tells the other items to stop.
template <class F>
void guarded(std::atomic<bool>& failed, std::string& error, F&& f) {
  if (failed.load(std::memory_order_relaxed)) return;
  try {
    f();
  } catch (const std::bad_alloc&) {
#pragma omp critical(damka_engine_error)
    if (!failed.exchange(true)) error = kWorkerOutOfMemory;
  } catch (const std::exception& e) {
#pragma omp critical(damka_engine_error)
    if (!failed.exchange(true)) error = e.what();
  }
}

// The values of one level, per pass (layout in Layout).
struct LevelArrays {
  int p = -1;
  BigVector<std::uint16_t> codes[kMaxPasses];
  // When the build marks derived positions (BuildOptions::mark_derived):
  // bit i % 16 of derived[i / 16] is 1 when position i of the level is
  // derived (its side to move must capture).  Starts all ones; each unit
  // clears the bits of its stored positions, so the bitmaps of processes
  // that solved different units combine with a bitwise AND (LevelSplit).
  BigVector<std::uint16_t> derived;
};

class UnitSolver {
 public:
  // A unit's quiet man moves, per part.  The men do not change with the
  // kings, so each man step, and where it leads in the level above (the
  // men's offset there), is found once per unit (man_steps); a position
  // makes the steps whose target square holds no king.
  struct ManSteps {
    struct Step {
      Bitboard to = 0;            // the target square
      Bitboard men_after = 0;     // the men after it, as the level above ranks them
      // The squares strictly between the step's two (by number, as on the
      // board: turning it keeps them between).  With no king there, the
      // kings' rank among men_after is theirs among the men before
      // (MaterialIndex::rank_kings): no ranking (gather).
      Bitboard between = 0;
      std::uint64_t offset = 0;   // where those men's K values start in the level above
      Move move;                  // the move (a promotion's value is read from the tables)
    };
    std::vector<Step> steps[2];
    // The level above stores the position colour-reversed (a symmetric
    // material with Black to move after the step): its kings are ranked so.
    bool flip[2] = {false, false};
  };
  // Per-unit working memory (reused from unit to unit by one thread).
  struct Scratch {
    BigVector<std::uint8_t> in, flags, pending;
    BigVector<std::uint16_t> queued;
    BigVector<std::uint16_t> win_exit[kMaxPasses], loss_exit[kMaxPasses];
    std::vector<std::vector<std::uint64_t>> buckets;
    // Emptied buckets of a unit solved by one thread, their capacity kept
    // for the next buckets (propagate; at most about a unit's positions of
    // entries in all, the plan's 8 bytes a position): a bucket grown afresh
    // by push_back, doubling and copying, was about 6% of a kings-heavy
    // 7-piece material's CPU time, most of it the kernel's page faults.
    std::vector<std::vector<std::uint64_t>> spare;
    std::uint64_t spare_entries = 0;  // their capacity, in entries
    // In-unit move graph (LevelMode UnitsGraph and TeamGraph): forward edges as gathered, then
    // each position's predecessors (CSR), so the passes need no un-moves.
    BigVector<std::uint32_t> fwd, fwd_off, rev, rev_off;
    // A team's forward edges, per chunk of consecutive positions (chunk c
    // holds positions [c * chunk, (c + 1) * chunk)); fwd_off then holds
    // offsets into each position's own chunk.
    std::vector<BigVector<std::uint32_t>> fwd_chunks;
    ManSteps man_steps;  // of the unit being solved (a team shares it)
    // The most entries the spare buckets keep for units of n positions.
    static std::uint64_t spare_limit(std::uint64_t n) { return std::max<std::uint64_t>(n, 4096); }
    // Calls f(array, pass) for each array of s with an entry per position:
    // pass -1 for those every pass uses, else the pass whose exits it holds.
    template <class S, class F>
    static void each_position_array(S& s, F&& f) {
      f(s.in, -1);
      f(s.flags, -1);
      f(s.pending, -1);
      f(s.queued, -1);
      for (int i = 0; i < kMaxPasses; ++i) {
        f(s.win_exit[i], i);
        f(s.loss_exit[i], i);
      }
    }
    void resize(std::uint64_t n, int passes);
    // Gives back what units of at most n positions would not use
    // (KeptScratch): each array's memory beyond n positions' need (the
    // graph's beyond edges_per_position a position; huge arrays keep their
    // capacity, not its pages), the exits of passes beyond `passes`, the
    // graph entirely unless `graph`, a team's chunks, the spare buckets
    // beyond n entries.  Contents unspecified after it.
    void trim(std::uint64_t n, int passes, std::uint64_t edges_per_position, bool graph);
    // Bytes its arrays and spare buckets hold in memory.
    std::uint64_t bytes() const;
  };
  // Bytes of a Scratch for a unit; edges_per_position = 0 when no move graph
  // is kept (Serial, Team).
  static std::uint64_t scratch_bytes(std::uint64_t unit_positions, int passes, std::uint64_t edges_per_position);

  // before_unit (a test aid, BuildOptions::before_unit; may be empty) is
  // called by each worker before it gathers a unit or a chunk of one.
  // large_unit: BuildOptions::large_unit.
  UnitSolver(const Rules& rules, const Layout& layout, const PassList& passes,
             std::function<void()> before_unit = {}, std::uint64_t large_unit = kLargeUnit);

  // Solves u by this thread alone; writes its values into `cur`.  `next`
  // holds the level above (null at the top level: no man move is possible).
  // With `edges`, the unit's move graph is kept (faster, more memory).
  void solve_serial(const Unit& u, Scratch& s, SuccessorReader& rd, const LevelArrays* next, LevelArrays& cur,
                    MoveList& moves, bool edges) const;
  // Solves u with a team of readers.size() threads (one reader each).  On
  // an exception in a worker, `error` receives its message.  With `edges`,
  // the unit's move graph is built by the team and kept (scratch_bytes with
  // edges: the passes then need no un-moves; several times faster).
  void solve_parallel(const Unit& u, Scratch& s, std::span<const std::unique_ptr<SuccessorReader>> readers,
                      const LevelArrays* next, LevelArrays& cur, bool edges, std::string& error) const;
  // Solves `units` by scratch.size() teams side by side (engine_teams.cpp):
  // the calling thread leads team 0, a std::thread each of the others, and
  // each team is an OpenMP team of its share of the readers (one per
  // thread, shares of consecutive readers, sizes differing by at most one).
  // Team t uses scratch[t].  The values do not depend on the teams: each
  // unit's are its own, whoever solves it.  `solved(n)` is called on the
  // calling thread after each unit it solves, n the positions solved by
  // all teams so far.  On a failure, `error` receives the first message,
  // and the units not started are left.  Cost: one thread start per team
  // beyond the first.
  void solve_teams(std::span<const Unit> units, std::span<Scratch> scratch,
                   std::span<const std::unique_ptr<SuccessorReader>> readers, const LevelArrays* next,
                   LevelArrays& cur, bool edges, std::string& error,
                   const std::function<void(std::uint64_t)>& solved) const;
  // Working memory of solve_sweep (reused between materials by the caller).
  struct SweepScratch {
    BigVector<std::uint8_t> pending;   // a position's successors not yet known to be won (per pass)
    BigVector<std::uint64_t> marks;    // per chunk of kSweepChunk positions: bit d % 64 when it holds
                                       // a position decided at distance d not yet swept
    BigVector<std::uint16_t> latest;   // per chunk: the largest distance of its capture positions
  };
  static constexpr std::uint64_t kSweepChunk = 4096;
  // Bytes of a SweepScratch for a unit of n positions: 1 per position.
  static std::uint64_t sweep_bytes(std::uint64_t n) { return n + n / kSweepChunk * 10 + 64; }
  // Solves a kings-only material (its one unit) with `threads` threads in
  // distance-ordered sweeps over the level's own value arrays: per pass,
  // every position decided at distance d (found by scanning the chunks
  // marked for d) lets its predecessors (un-moves) be decided at d + 1.
  // Besides the values it keeps a byte per position (successors not yet
  // won): 7 bytes per position with three passes, where solve_parallel
  // keeps some 30.  Chunks are the threads'
  // work units; the values do not depend on the threads.  `progress`
  // (called on the calling thread, may be empty) gets the share done, 0..1.
  // With a split (several processes, each calling this with the same unit;
  // cur's entries start kUnset), each decides the chunks c with
  // c % parts == part and sends the moves into the others' chunks to them
  // (LevelSplit::exchange, once per round of chunks swept): the others'
  // entries stay kUnset for the level's merge.
  void solve_sweep(const Unit& u, SweepScratch& s, std::vector<std::unique_ptr<SuccessorReader>>& readers,
                   LevelArrays& cur, int threads, std::string& error, const std::function<void(double)>& progress,
                   LevelSplit* split = nullptr) const;
  // A secondary pass left a won or lost position unresolved (tables disagree).
  bool inconsistent() const { return inconsistent_.load(); }

 private:
  Position position(const Unit& u, std::uint64_t l) const;
  // position(u, l), White's kings kept from the last call with `last`
  // where they are the same (MaterialIndex::LastWhiteKings): for visits in
  // increasing l.
  Position position(const Unit& u, std::uint64_t l, MaterialIndex::LastWhiteKings& last) const;
  // Calls f(lp) for the unit index lp of each predecessor of q (a position
  // of u) by a quiet king move.  A quiet king move from a to b is undone by
  // moving the king from b back to a along the same free diagonal, so the
  // un-move targets of a king on b are its own move targets
  // (king_step_targets) on the same occupancy.  Each is ranked by a
  // MaterialIndex::OneKingMore built once per king of the mover instead of
  // building the position and ranking it whole (rank_kings).  A quiet move is
  // illegal where a capture exists, so the caller must drop predecessors
  // whose side to move has a capture (kCaptureFlag, or a code set by the
  // forward pass).
  template <class F>
  void for_each_unmove_index(const Unit& u, const Position& q, F&& f) const;
  // The one ranking of quiet king steps (gather's moves, for_each_unmove_index's
  // un-moves): for each king on a square s of `movers`, f(base + the unit
  // index of the position with that king moved to t) for each t of its
  // king_step_targets on `occ`, the other kings where they are.  The index
  // ranks `movers` as White's kings if movers_white, else as Black's;
  // `fixed` are the other colour's kings and `men` the men, all as the index
  // stores them; `turn`: targets and movers as on the board, turned
  // (rotate180) into the index's orientation.  Cost: one OneKingMore per
  // king with a target, three look-ups per target.  Always inlined: gather's
  // f then keeps its edge list's end in a register (a call measured +0.7%
  // instructions for a men material).
  template <class F>
  [[gnu::always_inline]] void for_each_king_step_index(Bitboard movers, Bitboard fixed, Bitboard occ, Bitboard men,
                                                      bool turn, bool movers_white, std::uint64_t base, F&& f) const;
  // s.man_steps of u (moves: scratch).
  void man_steps(const Unit& u, ManSteps& out, MoveList& moves) const;
  // A position's best exits so far, per pass (gather): the fewest plies to
  // win (kUnset: none), the most to lose, and kDrawExit in flags.
  // Every pass's entries are set, used or not: a fixed count of stores
  // (a loop to the pass count became two memset calls, some 50
  // instructions per position gathered).
  struct Exits {
    std::uint8_t flags = 0;
    std::uint16_t win[kMaxPasses], loss[kMaxPasses];
    Exits() {
      for (int i = 0; i < kMaxPasses; ++i) {
        win[i] = kUnset;
        loss[i] = 0;
      }
    }
  };
  // Whether every pass has a win in 1 ply in ex: an exit is worth at least
  // 1 ply, so no further exit betters it, and with a win the other exits'
  // losses and draws are never read.  Without distances (WDL) every
  // winning exit is one.  The exits' reads stop there (as the oracle's
  // search stops at a winning capture).
  bool won_in_one(const Exits& ex) const;
  // Whether p has a capture; where it has, adds its captures' exits to ex
  // until won_in_one(ex), which also ends the capture search (`moves`:
  // scratch).
  bool add_capture_exits(const Position& p, MoveList& moves, Exits& ex, SuccessorReader& rd) const;
  // Adds exit mv of p (a capture or a promotion: its value is read from the
  // tables through rd) to ex.
  void add_exit(const Position& p, const Move& mv, Exits& ex, SuccessorReader& rd) const;
  // Adds a quiet man move's exit to ex: its value is at `at` in the level
  // above.
  void add_man_exit(std::uint64_t at, Exits& ex, const LevelArrays& next) const;
  // Adds an exit of `kind` (ExitKind bits) whose value is code[i] per pass.
  void note_exit(const std::uint16_t* code, std::uint8_t kind, Exits& ex) const;
  // p: position(u, l).
  // Edges go to `fwd` (s.fwd, or a team's chunk), fwd_off[l + 1] = fwd.size();
  // with `counts` (one thread's unit: s.queued, zeroed), ++counts[t] for
  // each edge to t (build_predecessors' counting pass, done here).
  template <bool Edges>
  void gather(const Unit& u, std::uint64_t l, const Position& p, Scratch& s, BigVector<std::uint32_t>& fwd,
              SuccessorReader& rd, const LevelArrays* next, MoveList& moves, std::uint16_t* counts = nullptr) const;
  // f(l, position(u, l)) for each l in [first, last) in order: the kings
  // walked (KingWalk), one unrank per part entered (the one ordering of a
  // unit's positions that gather_all and a team's chunks follow).
  template <class F>
  void walk_positions(const Unit& u, std::uint64_t first, std::uint64_t last, F&& f) const;
  // gather() of every position of u in order, walking the king placements;
  // with edges, into s.fwd, each target counted in s.rev_off (zeroed here).
  template <bool Edges>
  void gather_all(const Unit& u, Scratch& s, SuccessorReader& rd, const LevelArrays* next, MoveList& moves) const;
  template <bool Par, bool Edges>
  void propagate(const Unit& u, Scratch& s, LevelArrays& cur, int pass, int threads) const;
  // Predecessor lists (rev, rev_off) from the forward edges: s.fwd when
  // chunk == 0, else s.fwd_chunks of `chunk` positions each.  By `threads`
  // threads (an OpenMP team of its own); the lists do not depend on them.
  // `counted`: s.queued[0, n) already holds each target's count of edges
  // (gather_all<true> counts them as it gathers).
  static void build_predecessors(Scratch& s, std::uint64_t n, std::uint64_t chunk, int threads, bool counted = false);
  // Clears cur.derived's bits of u's stored positions (after gather).
  void record_stored(const Unit& u, const Scratch& s, LevelArrays& cur) const;

  const Rules& r_;
  const Layout& L_;
  const PassList& passes_;
  std::function<void()> before_unit_;
  std::uint64_t large_unit_;
  mutable std::atomic<bool> inconsistent_{false};
};

template <class F>
void UnitSolver::for_each_unmove_index(const Unit& u, const Position& q, F&& f) const {
  const Color to_move = opposite(q.side_to_move);  // the predecessors'
  const int mover = idx(to_move);
  // A symmetric material stores the predecessors colour-reversed (the board
  // turned) when Black is to move: the mover's kings are then White's in the
  // index, and the part is the one of the turned men.
  const bool flip = L_.sym && to_move == Color::Black;
  const Bitboard wm = flip ? rotate180(q.men[1]) : q.men[0], bm = flip ? rotate180(q.men[0]) : q.men[1];
  const int part = L_.sym ? (wm == u.wm[0] && bm == u.bm[0] ? 0 : 1) : (u.side[0] == to_move ? 0 : 1);
  assert(part < u.parts && wm == u.wm[part] && bm == u.bm[part]);
  const std::uint64_t base = part ? L_.K : 0;
  const Bitboard fixed = flip ? rotate180(q.kings[1 - mover]) : q.kings[1 - mover];
  for_each_king_step_index(q.kings[mover], fixed, q.occupied(), wm | bm, flip, flip || to_move == Color::White, base,
                           f);
}

template <class F>
inline void UnitSolver::for_each_king_step_index(Bitboard movers, Bitboard fixed, Bitboard occ, Bitboard men, bool turn,
                                                 bool movers_white, std::uint64_t base, F&& f) const {
  for (Bitboard b = movers; b; b &= b - 1) {
    const int s = lsb(b);
    const Bitboard targets = king_step_targets(r_, s, occ);
    if (targets == 0) continue;
    const Bitboard rest = movers ^ bit(s);
    const MaterialIndex::OneKingMore ranks(L_.index, movers_white, turn ? rotate180(rest) : rest, fixed, men);
    for (Bitboard t = turn ? rotate180(targets) : targets; t; t &= t - 1) f(base + ranks.rank(lsb(t)));
  }
}

template <class F>
inline void UnitSolver::walk_positions(const Unit& u, std::uint64_t first, std::uint64_t last, F&& f) const {
  for (std::uint64_t l = first; l < last;) {
    const std::uint64_t end = std::min(last, l < L_.K ? L_.K : 2 * L_.K);  // this part's
    Position p = position(u, l);
    KingWalk walk(p.men[0] | p.men[1], p.kings[0], p.kings[1]);
    for (;;) {
      f(l, p);
      if (++l == end) break;
      walk.next();
      p.kings[0] = walk.white();
      p.kings[1] = walk.black();
    }
    // The walk ends where the index does (checked once a run, not once a
    // position: asserts are kept in the shipped build, and one per position
    // was a fifth of a kings-only build's instructions).
    assert(p == position(u, end - 1));
  }
}

}  // namespace damka::engine_detail
