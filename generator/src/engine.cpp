// The pass engine's orchestration (engine.hpp): levels from the highest
// progress down, units handed to threads, finished levels to a slot-ordered
// store, and the store streamed to the sink.
#include "damka/engine.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cassert>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <new>
#include <numeric>

#include "damka/slots.hpp"
#include "damka/table_file.hpp"
#include "edge_gauge.hpp"
#include "engine_unit.hpp"
#include "phase_clock.hpp"
#include "slot_store.hpp"
#include "unit_pace.hpp"

namespace damka {

using namespace engine_detail;

PassList::PassList(const MetricSpec& limited) { specs.push_back(limited); }

PassList::PassList(const MetricSet& m) {
  specs.push_back(m.dtw ? kDtwSpec : kWdlSpec);
  if (m.dtc) {
    dtc = size();
    specs.push_back(kDtcSpec);
  }
  if (m.kings_only) {
    kings_only = size();
    specs.push_back(kKingsOnlySpec);
  }
}

namespace engine_detail {

LevelSizes::LevelSizes(const Material& canonical)
    : m(canonical), index(canonical), sym(canonical.is_symmetric()), sides(sym ? 1 : 2), K(index.kings_per_slice()) {
  index.for_each_men_config([&](std::uint64_t, Bitboard w, Bitboard b) {
    const auto p = static_cast<std::size_t>(progress_of(w, b));
    if (p >= size.size()) size.resize(p + 1, 0);
    ++size[p];
  });
}

Layout::Layout(const Material& canonical) : LevelSizes(canonical) {
  const std::uint64_t configs = index.men_configs();
  pos.resize(configs);
  level_of.resize(configs);
  levels.resize(size.size());
  for (std::size_t p = 0; p < size.size(); ++p) levels[p].reserve(size[p]);  // no growth, no copies
  index.for_each_men_config([&](std::uint64_t c, Bitboard w, Bitboard b) {
    const int p = progress_of(w, b);
    pos[c] = static_cast<std::uint32_t>(levels[p].size());
    level_of[c] = static_cast<std::uint8_t>(p);
    levels[p].push_back(c);
  });
}

std::vector<Unit> units_of_level(const Layout& L, int p, int threads) {
  const std::vector<std::uint64_t>& configs = L.levels[p];
  const auto n = static_cast<std::int64_t>(configs.size());
  std::vector<Unit> units(configs.size());
  std::vector<std::uint8_t> made(configs.size(), 1);
  // Each configuration's unit in parallel (unranking is the cost), then the
  // units kept, in order.
#pragma omp parallel for num_threads(std::max(1, threads)) schedule(static) if (n >= 4096)
  for (std::int64_t i = 0; i < n; ++i) {
    const std::uint64_t c = configs[static_cast<std::size_t>(i)];
    Bitboard w, b;
    L.index.unrank_men(c, w, b);
    Unit& u = units[static_cast<std::size_t>(i)];
    if (!L.sym) {
      u.parts = 2;
      u.side[0] = Color::White;
      u.side[1] = Color::Black;
      u.wm[0] = u.wm[1] = w;
      u.bm[0] = u.bm[1] = b;
      u.offset[0] = L.level_offset(0, c);
      u.offset[1] = L.level_offset(1, c);
    } else {
      // White to move in c and, after a white king move, Black to move in
      // c, stored as White to move in the colour-reversed configuration.
      const Bitboard fw = rotate180(b), fb = rotate180(w);
      const std::uint64_t f = L.index.rank_men(fw, fb);
      if (f < c) {  // the pair was made from f
        made[static_cast<std::size_t>(i)] = 0;
        continue;
      }
      u.wm[0] = w;
      u.bm[0] = b;
      u.offset[0] = L.level_offset(0, c);
      if (f != c) {
        u.parts = 2;
        u.wm[1] = fw;
        u.bm[1] = fb;
        u.offset[1] = L.level_offset(0, f);
      }
    }
  }
  std::size_t kept = 0;
  for (std::size_t i = 0; i < units.size(); ++i)
    if (made[i]) units[kept++] = units[i];
  units.resize(kept);
  return units;
}

}  // namespace engine_detail

namespace {

// This process's share of a level's units (LevelSplit).
std::vector<Unit> split_units(std::vector<Unit> units, const LevelSplit& split) {
  std::size_t kept = 0;
  for (std::size_t i = 0; i < units.size(); ++i)
    if (static_cast<int>(i % static_cast<std::size_t>(split.parts())) == split.part()) units[kept++] = units[i];
  units.resize(kept);
  return units;
}

constexpr std::uint64_t kFixedBytes = std::uint64_t{48} << 20;  // process, buffers, zstd contexts

// How a level is solved (LevelMode, engine.hpp).
using Mode = LevelMode;

struct LevelPlan {
  Mode mode = Mode::Team;
  int teams = 1;              // Team, TeamGraph: teams solving units side by side
  int graph_threads = 0;      // UnitsGraph: the threads that keep their units' graphs (the others none)
  std::uint64_t levels = 0;   // this level's and the next one's values
  std::uint64_t scratch = 0;  // unit working memory, all threads
};

// The teams for a level of `units` units that is not solved unit by unit:
// one per unit, each of at least two threads.  One team of 16 threads on a
// level of a few small units waited at every bucket of every unit: on 16
// cores, 2K2Mv2K's team levels took 3.1 s that way and 1.5 s with teams
// side by side (where 8 threads' units mode took 0.44 s).  With two or
// three threads this is one team.
int level_teams(std::size_t units, int threads) {
  return static_cast<int>(std::max<std::size_t>(1, std::min<std::size_t>(units, static_cast<std::size_t>(threads / 2))));
}

// team_graph_room: the bytes a team's move graph may take (team_graph_room()).
// seen_edges: 0, or the edges per position that the move graphs of the
// units solved so far suggest (EdgeGauge), where only some threads would
// keep a graph by the plan's estimate.
LevelPlan plan_level(const LevelSizes& L, int p, int passes, int threads, std::uint64_t fixed, std::uint64_t budget,
                     std::uint64_t team_graph_room, KingsOnly kings_only, std::uint64_t seen_edges = 0) {
  LevelPlan lp;
  const std::uint64_t above = static_cast<std::size_t>(p) + 1 < L.count() ? L.level_slots(p + 1) : 0;
  // Two bytes per position and pass, and the derived bitmap (LevelArrays).
  lp.levels = (L.level_slots(p) + above) * 2 * static_cast<std::uint64_t>(passes) + (L.level_slots(p) + above) / 8 + 4;
  const bool can_sweep = L.m.wm == 0 && L.m.bm == 0 && kings_only != KingsOnly::Team;
  auto sweep = [&] {
    lp.mode = Mode::Sweep;
    lp.scratch = UnitSolver::sweep_bytes(L.level_slots(p));
    return lp;
  };
  if (can_sweep && kings_only == KingsOnly::Sweep) return sweep();
  const std::uint64_t configs = L.size[static_cast<std::size_t>(p)];
  const std::size_t units = L.sym ? (configs + 1) / 2 : configs;
  const std::uint64_t unit_positions = 2 * L.K;  // the largest unit: both parts of a configuration
  // Quiet king moves per position: a few per king (about 9 for a flying
  // king among 7 pieces).
  const std::uint64_t edges = planned_edges_per_position(L.m);
  // Edges are numbered in 32 bits: at most 13 moves per flying king.
  const bool numbered = unit_positions * static_cast<std::uint64_t>(std::max(L.m.wk, L.m.bk)) * 13 < (std::uint64_t{1} << 32);
  const std::uint64_t t = static_cast<std::uint64_t>(threads);
  const std::uint64_t have = budget > fixed + lp.levels ? budget - fixed - lp.levels : 0;
  if (threads == 1 || units >= 2 * static_cast<std::size_t>(threads)) {
    const std::uint64_t graph = UnitSolver::scratch_bytes(unit_positions, passes, edges) * t;
    const std::uint64_t plain = UnitSolver::scratch_bytes(unit_positions, passes, 0) * t;
    // The graph only where it costs a fraction of the budget.
    if (graph <= have / 2 && numbered) {
      lp.mode = Mode::UnitsGraph;
      lp.graph_threads = threads;
      lp.scratch = graph;
      return lp;
    }
    if (can_sweep) return sweep();
    // Where a graph per thread does not fit, as many threads keep one as
    // fit beside the store (they must not make it spill), the others none:
    // following predecessor lists beats generating un-moves, and a unit
    // stays one thread's (Russian 4K1Mv2K, --metrics wdl, 2 threads,
    // --memory 16G, idle: units 217 s without graphs, 158 s with one
    // thread's; a team sharing one graph took 180 s, its atomics costing
    // more than the graph saved for 3K1Mv3K, unchanged here at 180 s).
    // Not bound to half of what is left, as the graphs of all threads are:
    // finished tables kept in memory leave less than that to the one-man
    // 7-piece materials at --memory 16G.
    // Once units have been solved with a graph, their edges count instead
    // of the estimate (EdgeGauge; 7 and 8 a position where 27 were planned
    // for Russian 3K1Mv3K and 4K1Mv2K), so that as many threads keep one
    // as those would fit (the dry run, which has seen none, plans fewer):
    // --metrics wdl, --memory 16G, 2 threads, the other tables present,
    // units 117-123 s -> 114 s and 113 -> 84 s, peak RSS 4.8 -> 6.0 GB
    // and 3.9 -> 5.0 GB.
    const std::uint64_t graph_edges = seen_edges > 0 ? std::min(edges, seen_edges) : edges;
    const std::uint64_t one = UnitSolver::scratch_bytes(unit_positions, passes, graph_edges);
    const std::uint64_t single = plain / t;
    const std::uint64_t store = table_slots(L.index) * 2 * static_cast<std::uint64_t>(passes);
    if (threads > 1 && numbered && store + plain + (one - single) <= have) {
      const std::uint64_t g = std::min<std::uint64_t>(seen_edges > 0 ? t : t - 1, (have - store - plain) / (one - single));
      lp.mode = Mode::UnitsGraph;
      lp.graph_threads = static_cast<int>(g);
      lp.scratch = plain + g * (one - single);
      return lp;
    }
    if (plain <= have / 2 || threads == 1) {
      lp.mode = Mode::Units;
      lp.scratch = plain;
      return lp;
    }
  }
  // A team shares one unit's scratch; with the graph where it fits the
  // room left (the passes then follow predecessor lists instead of
  // generating un-moves: 4Kv1K with 2 threads took 2.4 times the CPU of one
  // thread with a graph).  The teams beyond one take only that room too
  // (fewer teams where it is short): the room is what the budget leaves
  // beside the plan's minimum and its store, so they never make a store
  // spill to disk.
  const std::uint64_t teams = static_cast<std::uint64_t>(level_teams(units, threads));
  const std::uint64_t team_graph = UnitSolver::scratch_bytes(unit_positions, passes, edges);
  if (team_graph <= team_graph_room && numbered) {
    lp.mode = Mode::TeamGraph;
    lp.teams = static_cast<int>(std::min(teams, team_graph_room / team_graph));
    lp.scratch = team_graph * static_cast<std::uint64_t>(lp.teams);
    return lp;
  }
  if (can_sweep) return sweep();
  const std::uint64_t plain = UnitSolver::scratch_bytes(unit_positions, passes, 0);
  lp.mode = Mode::Team;
  lp.teams = static_cast<int>(std::min(teams, 1 + team_graph_room / std::max<std::uint64_t>(plain, 1)));
  lp.scratch = plain * static_cast<std::uint64_t>(lp.teams);
  return lp;
}

// The bytes a team's move graph may take: an eighth of what the budget
// leaves beside the plan's minimum and its in-memory store.  Kings-only
// units are whole tables: with the default budget the 5-piece ones get a
// graph and the 6-piece ones (several GB of it) do not, and need none:
// with room for it (Russian, --memory 16G, 2 threads, idle) 5Kv1K took
// 5.75 s against the sweep's 6.08, 3Kv3K 5.55 s against 4.54 and 4Kv2K
// 10.56 s as the sweep, at 5 to 10 times the peak memory (a third of the
// graph's CPU went to faulting its fresh pages in).
std::uint64_t team_graph_room(const MemoryPlan& plan, std::uint64_t budget) {
  const std::uint64_t used = plan.minimum + plan.store;
  return budget > used ? (budget - used) / 8 : 0;
}

void count(SideCounts& c, std::uint16_t primary, std::uint16_t dtc) {
  const Value v = Value::decode(primary);
  if (v.wdl == Wdl::Win) {
    ++c.wins;
    c.longest_win = std::max<int>(c.longest_win, v.plies);
    c.longest_win_dtc = std::max<int>(c.longest_win_dtc, Value::decode(dtc).plies);
  } else if (v.wdl == Wdl::Loss) {
    ++c.losses;
  } else {
    ++c.draws;
  }
}

// Moves a finished level's values to the store, coalescing consecutive
// configurations (contiguous both in the level and in slot order).  Counts
// the true values and copies the primary pass's to `resolved` (slot order;
// null: not kept); in the store, every pass's code of a derived position
// (the level's derived bitmap) is kDontCareCode.  With the store in memory,
// one pass over the level: the runs cut into pieces that the threads share,
// each piece counted, copied and marked while it is in the cache (a count
// pass, a copy to `resolved`, a marking pass and a copy to the store, each
// over the whole level, read it four times).
Status flush_level(const Layout& L, LevelArrays& lv, const PassList& passes, SlotStore& store, BuildStats& stats,
                   int threads, std::uint16_t* resolved) {
  const std::vector<std::uint64_t>& configs = L.levels[lv.p];
  const std::uint64_t N = L.index.size();
  const std::uint64_t per_side = configs.size() * L.K;
  const int P = passes.size();
  // Runs of consecutive configurations (contiguous both in the level and in
  // slot order), cut into pieces of at most kPiece values (a piece of each
  // pass stays in the cache while it is counted, copied and marked).
  struct Run {
    std::uint64_t slot, at, n;
    int side;
  };
  constexpr std::uint64_t kPiece = std::uint64_t{1} << 14;
  std::vector<Run> runs, pieces;
  for (int side = 0; side < L.sides; ++side) {
    for (std::size_t i = 0; i < configs.size();) {
      std::size_t j = i + 1;
      while (j < configs.size() && configs[j] == configs[j - 1] + 1) ++j;
      const Run run{side * N + configs[i] * L.K, L.level_offset(side, configs[i]), (j - i) * L.K, side};
      runs.push_back(run);
      for (std::uint64_t d = 0; d < run.n; d += kPiece)
        pieces.push_back(Run{run.slot + d, run.at + d, std::min(kPiece, run.n - d), side});
      i = j;
    }
  }
  const auto np = static_cast<std::int64_t>(pieces.size());
  std::uint16_t* mem[kMaxPasses] = {};
  for (int k = 0; k < P; ++k) mem[k] = store.memory(k);
  const bool in_memory = mem[0] != nullptr;
  const std::uint16_t* const derived = lv.derived.empty() ? nullptr : lv.derived.data();
  // Every thread counts a share (sums and maxima: the order does not matter).
#pragma omp parallel num_threads(threads)
  {
    SideCounts mine[2];
#pragma omp for schedule(dynamic, 1) nowait
    for (std::int64_t r = 0; r < np; ++r) {
      const Run& run = pieces[static_cast<std::size_t>(r)];
      const std::uint16_t* const primary = lv.codes[0].data() + run.at;
      const std::uint16_t* const dtc = passes.dtc >= 0 ? lv.codes[passes.dtc].data() + run.at : nullptr;
      SideCounts& c = mine[run.side];
      for (std::uint64_t j = 0; j < run.n; ++j) {
        assert(primary[j] != kUnset);
        count(c, primary[j], dtc != nullptr ? dtc[j] : 0);
      }
      // The primary pass's true values, before derived positions lose theirs.
      if (resolved != nullptr) std::copy(primary, primary + run.n, resolved + run.slot);
      if (!in_memory) continue;
      for (int k = 0; k < P; ++k) {
        const std::uint16_t* const from = lv.codes[k].data() + run.at;
        std::copy(from, from + run.n, mem[k] + run.slot);
      }
      if (derived == nullptr) continue;
      // The piece's derived positions (bits at + j of the level's bitmap).
      const std::uint64_t end = run.at + run.n;
      for (std::uint64_t w = run.at / 16; w * 16 < end; ++w) {
        std::uint32_t bits = derived[w];
        if (w * 16 < run.at) bits &= ~0u << (run.at - w * 16);
        for (; bits != 0; bits &= bits - 1) {
          const std::uint64_t j = w * 16 + static_cast<std::uint64_t>(std::countr_zero(bits));
          if (j >= end) break;
          for (int k = 0; k < P; ++k) mem[k][run.slot + (j - run.at)] = kDontCareCode;
        }
      }
    }
#pragma omp critical(damka_flush_count)
    for (int side = 0; side < L.sides; ++side) {
      SideCounts& total = stats.side[side];
      total.wins += mine[side].wins;
      total.draws += mine[side].draws;
      total.losses += mine[side].losses;
      total.longest_win = std::max(total.longest_win, mine[side].longest_win);
      total.longest_win_dtc = std::max(total.longest_win_dtc, mine[side].longest_win_dtc);
    }
  }
  if (in_memory) return {};
  // The store on disk: the level's derived positions marked in its arrays
  // (the level is no longer read), then a write per run.
  if (derived != nullptr) {
    const std::uint64_t used = L.sides * per_side;
#pragma omp parallel for num_threads(threads) schedule(static)
    for (std::int64_t w = 0; w < static_cast<std::int64_t>(lv.derived.size()); ++w)
      for (std::uint32_t bits = lv.derived[w]; bits != 0; bits &= bits - 1) {
        const std::uint64_t j = static_cast<std::uint64_t>(w) * 16 + static_cast<std::uint64_t>(std::countr_zero(bits));
        if (j >= used) break;
        for (int k = 0; k < P; ++k) lv.codes[k][j] = kDontCareCode;
      }
  }
  for (const Run& run : runs)
    for (int k = 0; k < P; ++k)
      if (Status s = store.write(k, run.slot, lv.codes[k].data() + run.at, run.n); !s.ok()) return s;
  return {};
}

class MemoryReader : public SuccessorReader {
 public:
  explicit MemoryReader(const std::vector<MemorySuccessors::Entry>& e) : entries_(e) {}
  std::uint16_t code(const Position& q) override {
    if (q.pieces(q.side_to_move) == 0) return Value::loss(0).encode();
    const Material c = material_of(q).canonical();
    if (last_ == nullptr || last_->canonical != c) {
      last_ = nullptr;
      for (const auto& e : entries_)
        if (e.canonical == c) last_ = &e;
      if (last_ == nullptr) {
        if (error_.empty()) error_ = "successor material " + c.name() + " is not available";
        return 0;
      }
    }
    return (*last_->codes)[locate_slot(last_->index, q)];
  }

 private:
  const std::vector<MemorySuccessors::Entry>& entries_;
  const MemorySuccessors::Entry* last_ = nullptr;
};

class FunctionReader : public SuccessorReader {
 public:
  explicit FunctionReader(const FunctionSuccessors::Fn& fn) : fn_(fn) {}
  std::uint16_t code(const Position& q) override {
    if (q.pieces(q.side_to_move) == 0) return Value::loss(0).encode();
    auto c = fn_(q);
    if (!c) {
      if (error_.empty()) error_ = c.message();
      return 0;
    }
    return *c;
  }

 private:
  const FunctionSuccessors::Fn& fn_;
};

}  // namespace

void MemorySuccessors::add(const Material& canonical, const std::vector<std::uint16_t>* codes) {
  entries_.push_back(Entry{canonical, MaterialIndex(canonical), codes});
}
std::unique_ptr<SuccessorReader> MemorySuccessors::reader() const { return std::make_unique<MemoryReader>(entries_); }
std::unique_ptr<SuccessorReader> FunctionSuccessors::reader() const { return std::make_unique<FunctionReader>(fn_); }

std::string_view level_mode_name(LevelMode mode) {
  switch (mode) {
    case LevelMode::UnitsGraph: return "units_graph";
    case LevelMode::Units: return "units";
    case LevelMode::TeamGraph: return "team_graph";
    case LevelMode::Team: return "team";
    case LevelMode::Sweep: return "sweep";
  }
  return "?";
}

MemoryPlan plan_memory(const Material& canonical, const MetricSet& metrics, int threads, std::uint64_t reader_bytes,
                       std::uint64_t budget, KingsOnly kings_only, bool store_on_disk) {
  const LevelSizes L(canonical);
  const int P = PassList(metrics).size();
  threads = std::max(1, threads);
  MemoryPlan plan;
  plan.readers = reader_bytes * static_cast<std::uint64_t>(threads);
  const std::uint64_t fixed = plan.readers + kFixedBytes;
  // The minimum without a team's move graph (an option, like the serial
  // units' graph: taken only with memory to spare), then the plan with it,
  // whose levels' modes are counted (`count`).
  auto worst_of = [&](std::uint64_t room, bool count) {
    std::uint64_t worst = 0;
    for (std::size_t p = 0; p < L.count(); ++p) {
      if (L.size[p] == 0) continue;
      const LevelPlan lp = plan_level(L, static_cast<int>(p), P, threads, fixed, budget, room, kings_only);
      if (count) {
        ++plan.levels_by_mode[static_cast<std::size_t>(lp.mode)];
        if (lp.mode == Mode::UnitsGraph && lp.graph_threads < threads) ++plan.levels_partly_graphed;
      }
      if (lp.levels + lp.scratch > worst) {
        worst = lp.levels + lp.scratch;
        plan.levels = lp.levels;
        plan.units = lp.scratch;
      }
    }
    return worst;
  };
  const std::uint64_t slots = table_slots(L.index);
  plan.minimum = worst_of(0, false) + fixed;
  plan.store = slots * 2 * static_cast<std::uint64_t>(P);
  plan.spill = store_on_disk || plan.minimum + plan.store > budget;
  if (plan.spill) {
    plan.spill_disk = plan.store;
    plan.store = 0;
  }
  const std::uint64_t room = team_graph_room(plan, budget);
  plan.peak = std::max(plan.minimum, worst_of(room, true) + fixed) + plan.store;
  return plan;
}

struct KeptScratch::Impl {
  std::vector<UnitSolver::Scratch> threads;
};
KeptScratch::KeptScratch() : impl_(std::make_unique<Impl>()) {}
KeptScratch::~KeptScratch() = default;
void KeptScratch::release() noexcept { impl_->threads.clear(); }
std::uint64_t KeptScratch::bytes() const {
  std::uint64_t b = 0;
  for (const UnitSolver::Scratch& s : impl_->threads) b += s.bytes();
  return b;
}

Status build_material(const Rules& rules, const Material& m, const SuccessorSource& successors, ValueSink& sink,
                      const BuildOptions& opt, BuildStats& stats) {
  const auto t0 = std::chrono::steady_clock::now();
  if (!m.is_canonical()) return Error("build_material: " + m.name() + " is not canonical");
  const int threads = std::max(1, opt.threads);
  const PassList passes = opt.limited ? PassList(*opt.limited) : PassList(opt.metrics);
  const int P = passes.size();
  const MemoryPlan plan =
      plan_memory(m, opt.metrics, threads, successors.reader_bytes(), opt.memory_budget, opt.kings_only,
                  opt.store_on_disk);
  auto fail = [&](const std::string& why, ErrorCode code = ErrorCode::Other) {
    return Status(Error(m.name() + ": " + why, code));
  };
  if (plan.minimum > opt.memory_budget) return fail(memory_shortfall(plan.minimum, threads, opt.memory_budget));
  stats = BuildStats{};
  stats.profile.threads = threads;
  const Usage used0 = Usage::now();
  stats.peak_bytes = plan.peak;
  stats.spilled = plan.spill;
  try {
    const Layout L(m);
    // The threads' scratch: kept from the last build (KeptScratch) less what
    // this one's plan has no room for (freed before the store takes its
    // memory), or fresh.
    std::vector<UnitSolver::Scratch> own;
    std::vector<UnitSolver::Scratch>& scratch = opt.scratch != nullptr ? opt.scratch->impl().threads : own;
    {
      const bool swept = plan.levels_by_mode[static_cast<std::size_t>(Mode::Sweep)] > 0;
      const std::uint32_t levels =  // the non-empty levels: each has a mode
          std::accumulate(plan.levels_by_mode.begin(), plan.levels_by_mode.end(), std::uint32_t{0});
      // The graph is kept where every level has one for every thread.
      const bool graph = plan.levels_by_mode[static_cast<std::size_t>(Mode::UnitsGraph)] == levels &&
                         plan.levels_partly_graphed == 0;
      if (swept || plan.spill) scratch.clear();
      scratch.resize(static_cast<std::size_t>(threads));
      for (UnitSolver::Scratch& s : scratch) s.trim(2 * L.K, P, planned_edges_per_position(L.m), graph);
    }
    const std::uint64_t slots = table_slots(L.index);
    stats.positions = slots;
    SlotStore store(slots, P);
    const bool writes = opt.split == nullptr || opt.split->writer();  // keeps the store and feeds the sink
    if (writes)
      if (Status s = store.open(plan.spill, opt.spill_dir, m, env_or_default(opt.env), opt.kept); !s.ok()) return fail(s.message());
    std::uint16_t* resolved = nullptr;
    if (writes && opt.resolved != nullptr) {
      opt.resolved->resize(slots);  // not filled (HugePageAllocator): flush_level writes every slot
      resolved = opt.resolved->data();
    }
    // The kept pages the store and the kept codes did not take go back to
    // the system before the levels take their memory (the plan's count).
    if (opt.kept != nullptr) opt.kept->release();
    UnitSolver solver(rules, L, passes, opt.before_unit, opt.large_unit);
    std::vector<std::unique_ptr<SuccessorReader>> readers;
    for (int t = 0; t < threads; ++t) readers.push_back(successors.reader());
    UnitSolver::SweepScratch sweep;
    LevelArrays next, cur;
    std::uint64_t done = 0, split_done = 0;
    std::string error;
    ErrorCode error_code = ErrorCode::Other;  // a successor read's
    UnitPace pace;
    EdgeGauge gauge;
    for (std::size_t pi = L.levels.size(); pi-- > 0;) {
      const int p = static_cast<int>(pi);
      if (L.levels[p].empty()) continue;
      // cur may hold the buffers of level p + 2 (see the swap below), whose
      // values are done with: their pages past this level's need go back to
      // the system (huge_release_after), so that the level and the one
      // above never hold more than the plan's largest pair of adjacent
      // levels, and the rest are this level's without a page fault (freeing
      // the buffers and mapping new ones faulted every page in again; on
      // the virtual machines measured, pages given back cost about 1.7 s a
      // GB to fault in again).  A buffer too small is replaced, not grown:
      // growing copied the dead values into the new pages.
      const std::uint64_t need = L.level_slots(p);
      for (int k = 0; k < P; ++k) {
        BigVector<std::uint16_t>& c = cur.codes[k];
        if (c.capacity() < need) c = BigVector<std::uint16_t>();
        c.clear();
        huge_release_after(c.data(), c.capacity() * sizeof(std::uint16_t), need * sizeof(std::uint16_t));
      }
      if (cur.derived.capacity() < (need + 15) / 16) cur.derived = BigVector<std::uint16_t>();
      huge_release_after(cur.derived.data(), cur.derived.capacity() * sizeof(std::uint16_t),
                         (need + 15) / 16 * sizeof(std::uint16_t));
      cur.p = p;
      // Every unit sets each of its positions before reading it, so the
      // values need no fill, except where other processes solve some units
      // (split: what they did not send stays kUnset).
      for (int k = 0; k < P; ++k) {
        if (opt.split)
          cur.codes[k].assign(need, kUnset);
        else
          cur.codes[k].resize(need);
      }
      if (opt.mark_derived) cur.derived.assign((L.level_slots(p) + 15) / 16, 0xFFFF);
      const LevelArrays* above = next.p == p + 1 ? &next : nullptr;
      // A kings-only material split among processes is swept by all of them.
      const bool shared_sweep = opt.split && L.m.wm == 0 && L.m.bm == 0;
      const LevelPlan lp = plan_level(L, p, P, threads, plan.readers + kFixedBytes, opt.memory_budget,
                                      team_graph_room(plan, opt.memory_budget),
                                      shared_sweep ? KingsOnly::Sweep : opt.kings_only, gauge.edges());
      const std::vector<Unit> units =
          opt.split && !shared_sweep ? split_units(units_of_level(L, p, threads), *opt.split) : units_of_level(L, p, threads);
      PhaseClock level_clock(stats.profile,
                             lp.mode == Mode::UnitsGraph || lp.mode == Mode::Units ? Phase::Units : Phase::Team);
      if (lp.mode == Mode::UnitsGraph || lp.mode == Mode::Units) {
        // One parallel region for the whole level: a barrier per chunk of
        // units left a thread waiting for the other's last unit (and, on a
        // busy machine, for a descheduled thread) many times per level.
        // Tiny units are handed out several at a time.  Progress: each
        // thread adds what it solved to `solved` every 2^16 positions or
        // so (not per position), and the calling thread (thread 0) reports.
        const std::uint64_t unit_positions = (L.sym ? 1 : 2) * L.K;
        const int grain = static_cast<int>(std::max<std::uint64_t>(1, 2048 / unit_positions));
        constexpr std::uint64_t kAddEvery = std::uint64_t{1} << 16, kReportEvery = std::uint64_t{1} << 20;
        const std::uint64_t level_first = done;
        std::atomic<std::uint64_t> solved{0};
        std::atomic<bool> failed{false};
        std::atomic<std::size_t> taken{0};  // units handed out, `grain` at a time
        pace.next_level();
#pragma omp parallel num_threads(threads)
        {
          const auto t = static_cast<std::size_t>(omp_get_thread_num());
          const bool graph = static_cast<int>(t) < lp.graph_threads;
          MoveList moves;
          std::uint64_t unadded = 0, reported = 0;
          for (;;) {
            // Where only some threads keep a move graph, one without leaves
            // units to them where they would end the level sooner (UnitPace).
            if (!graph && lp.graph_threads > 0 &&
                !pace.take(units.size() - std::min(units.size(), taken.load(std::memory_order_relaxed)),
                           lp.graph_threads))
              break;
            const std::size_t first = taken.fetch_add(static_cast<std::size_t>(grain), std::memory_order_relaxed);
            if (first >= units.size()) break;
            const std::size_t end = std::min(units.size(), first + static_cast<std::size_t>(grain));
            const double start = wall_seconds();
            for (std::size_t i = first; i < end; ++i) {
              guarded(failed, error,
                      [&] { solver.solve_serial(units[i], scratch[t], *readers[t], above, cur, moves, graph); });
              if (graph) gauge.add(scratch[t].fwd.size(), units[i].parts * L.K);
              if ((unadded += units[i].parts * L.K) < kAddEvery) continue;
              const std::uint64_t now = solved.fetch_add(unadded, std::memory_order_relaxed) + unadded;
              unadded = 0;
              if (t == 0 && opt.progress && now - reported >= kReportEvery && !failed.load(std::memory_order_relaxed)) {
                opt.progress(level_first + now, slots);
                reported = now;
              }
            }
            pace.add(graph, wall_seconds() - start, end - first);
          }
        }
        for (const Unit& u : units) done += u.parts * L.K;
        if (opt.progress && error.empty()) opt.progress(done, slots);
      } else if (lp.mode == Mode::Sweep) {
        for (const Unit& u : units) {
          const std::uint64_t first = done, size = u.parts * L.K;
          auto report = [&](double share) {
            if (opt.progress) opt.progress(first + static_cast<std::uint64_t>(share * static_cast<double>(size)), slots);
          };
          try {
            solver.solve_sweep(u, sweep, readers, cur, threads, error, report, opt.split);
          } catch (const std::bad_alloc&) {
            error = kWorkerOutOfMemory;
          }
          if (!error.empty()) break;
          done += size;
        }
      } else {
        const std::uint64_t level_first = done;
        std::function<void(std::uint64_t)> solved;
        if (opt.progress) solved = [&](std::uint64_t n) { opt.progress(level_first + n, slots); };
        solver.solve_teams(units, std::span(scratch).first(static_cast<std::size_t>(lp.teams)), readers, above, cur,
                           lp.mode == Mode::TeamGraph, error, solved);
        for (const Unit& u : units) done += u.parts * L.K;
        if (opt.progress && error.empty()) opt.progress(done, slots);
      }
      level_clock.stop();
      for (const auto& r : readers)
        if (error.empty() && !r->error().empty()) {
          error = r->error();
          error_code = r->error_code();
        }
      if (opt.split) {  // the other processes solved the other units
        const bool failed = !error.empty() || solver.inconsistent();
        Status s = opt.split->agree(failed);
        for (int k = 0; k < P && s.ok() && !failed; ++k) s = opt.split->merge(cur.codes[k]);
        if (s.ok() && !failed && opt.mark_derived) s = opt.split->merge(cur.derived);
        if (!s.ok() && error.empty()) error = s.message();
        done = split_done += L.level_slots(p);
        if (opt.progress && error.empty()) opt.progress(done, slots);
      }
      if (error == kWorkerOutOfMemory)
        error += " (planned peak " + format_bytes(plan.peak) + ", limit " + format_bytes(opt.memory_budget) +
                 "; lower --memory or free memory)";
      if (!error.empty()) return fail(error, error_code);
      if (solver.inconsistent()) return fail("a won or lost position never reached the end of its count (inconsistent tables)");
      if (writes && next.p >= 0) {
        PhaseClock clock(stats.profile, Phase::Flush);
        if (Status s = flush_level(L, next, passes, store, stats, threads, resolved); !s.ok()) return fail(s.message());
      }
      // cur's buffers (level p + 1, flushed) are reused by the next level:
      // fresh memory costs a page fault per page (a few % of a build).
      std::swap(next, cur);
      cur.p = -1;
    }
    if (writes && next.p >= 0) {
      PhaseClock clock(stats.profile, Phase::Flush);
      if (Status s = flush_level(L, next, passes, store, stats, threads, resolved); !s.ok()) return fail(s.message());
    }
    for (const auto& r : readers) stats.profile.reads += r->read_seconds();
    next = LevelArrays{};
    cur = LevelArrays{};
    if (opt.scratch == nullptr) scratch.clear();  // else kept for the next build
    sweep = {};
    readers.clear();
    if (!writes) stats.positions = 0;  // another process streams and counts the values


    // Stream the store to the sink in slot order.
    PhaseClock write_clock(stats.profile, Phase::Write);
    const std::uint64_t chunk = std::uint64_t{1} << 20;
    std::vector<std::uint16_t> buf[kMaxPasses];
    std::vector<std::span<const std::uint16_t>> spans(static_cast<std::size_t>(P));
    for (std::uint64_t first = 0; writes && first < slots; first += chunk) {
      const std::uint64_t n = std::min(chunk, slots - first);
      for (int k = 0; k < P; ++k) {
        if (const std::uint16_t* mem = store.memory(k)) {  // no copy
          spans[k] = std::span<const std::uint16_t>(mem + first, n);
          continue;
        }
        if (Status s = store.read(k, first, n, buf[k]); !s.ok()) return fail(s.message());
        spans[k] = buf[k];
      }
      if (Status s = sink.add(first, spans); !s.ok()) return s;
    }
  } catch (const std::bad_alloc&) {
    return fail("out of memory (planned peak " + format_bytes(plan.peak) + ", limit " +
                format_bytes(opt.memory_budget) + ")");
  } catch (const std::exception& e) {
    return fail(e.what());
  }
  stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  settle_other(stats.profile, stats.seconds, Usage::now() - used0);
  return {};
}

Expected<std::uint64_t> parse_memory_size(std::string_view text) {
  std::string t(text);
  const std::string orig = t;
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.pop_back();
  auto strip = [&](std::string_view suffix) {
    if (t.size() >= suffix.size()) {
      std::string tail = t.substr(t.size() - suffix.size());
      std::transform(tail.begin(), tail.end(), tail.begin(), [](unsigned char c) { return std::tolower(c); });
      if (tail == suffix) {
        t.resize(t.size() - suffix.size());
        return true;
      }
    }
    return false;
  };
  strip("ib") || strip("b");
  double mult = 1;
  if (strip("k")) mult = 1024.0;
  else if (strip("m")) mult = 1024.0 * 1024;
  else if (strip("g")) mult = 1024.0 * 1024 * 1024;
  else if (strip("t")) mult = 1024.0 * 1024 * 1024 * 1024;
  char* end = nullptr;
  errno = 0;
  const double v = t.empty() ? -1 : std::strtod(t.c_str(), &end);
  if (t.empty() || end == nullptr || *end != '\0' || errno != 0 || !(v > 0) || !std::isfinite(v) || v * mult > 1e18)
    return Error("not a memory size: '" + orig + "' (examples: 8G, 512M, 24GiB)");
  return static_cast<std::uint64_t>(v * mult);
}

std::string format_bytes(std::uint64_t bytes) {
  char buf[64];
  const double b = static_cast<double>(bytes);
  if (b >= 1024.0 * 1024 * 1024) std::snprintf(buf, sizeof buf, "%.1f GiB", b / (1024.0 * 1024 * 1024));
  else if (b >= 1024.0 * 1024) std::snprintf(buf, sizeof buf, "%.0f MiB", b / (1024.0 * 1024));
  else if (b >= 1024.0) std::snprintf(buf, sizeof buf, "%.0f KiB", b / 1024.0);
  else std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(bytes));
  return buf;
}

std::string memory_shortfall(std::uint64_t need, int threads, std::uint64_t budget) {
  std::string need_text = format_bytes(need), budget_text = format_bytes(budget);
  if (need_text == budget_text) {
    need_text += " (" + std::to_string(need) + " bytes)";
    budget_text += " (" + std::to_string(budget) + " bytes)";
  }
  return "needs " + need_text + " of memory with " + std::to_string(threads) + (threads == 1 ? " thread" : " threads") +
         ", limit " + budget_text + " (raise --memory or use fewer threads)";
}

}  // namespace damka
