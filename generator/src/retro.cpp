// Retrograde analysis of one material.
//
// Order of work.  Men moves are irreversible, so the positions of a material
// are grouped into *levels* by the progress of their men,
//     progress = sum of white men's rows + sum of (7 - black men's rows),
// which every man move raises by exactly 1, king moves leave alone, and colour
// reversal preserves (so a symmetric material's flipped positions share the
// level).  Levels are solved from the highest progress down.  Inside a level
// the only moves that stay are quiet king moves; captures and promotions lead
// to other materials (already solved) and man moves to higher levels (already
// solved): both are "exits" with final values.
//
// Each level is solved in two passes over the same move graph:
//  1. DTW (plies to the end of the game; winner shortest, loser longest);
//  2. DTC (plies to the next capture or promotion, the winner keeping the win
//     and converting as soon as it can, the loser delaying), using the WDL
//     from pass 1.
// Each pass resolves positions in increasing distance with buckets: a
// position becomes a win at d+1 when a successor is finalised as a loss at d
// (or an exit says so), and a loss when its last in-level successor is
// finalised as a win, at one more than the largest successor distance.
// Un-moves (retro_unmove.hpp) give each finalised position's in-level
// predecessors.  What is never resolved in pass 1 is a draw.
#include "retro.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cassert>
#include <chrono>

#include "damka/slots.hpp"

namespace damka::retro {
namespace {

constexpr std::uint16_t kUnset = 0xFFFF;
constexpr std::uint16_t kInf = 0xFFFF;

// Facts about one position of a level gathered by forward move generation.
struct Facts {
  std::uint16_t win_exit_dtw = kInf;  // 1 + shortest exit to a lost position
  std::uint16_t loss_exit_dtw = 0;    // 1 + longest exit to a won position
  std::uint16_t win_exit_dtc = kInf;  // best value-keeping exit for DTC
  std::uint16_t loss_exit_dtc = 0;    // longest exit for DTC
  std::uint8_t in_level = 0;          // quiet king moves (successors in the level)
  bool draw_exit = false;             // an exit to a drawn position
  bool no_moves = false;
  bool capture = false;               // must capture: no quiet move leads here
};

// A successor's distance seen from the mover (one ply more).
std::uint16_t one_more(std::uint16_t d) { return static_cast<std::uint16_t>(d + 1); }

int progress(Bitboard white_men, Bitboard black_men) {
  int p = 0;
  for (Bitboard b = white_men; b; b &= b - 1) p += row_of(lsb(b));
  for (Bitboard b = black_men; b; b &= b - 1) p += 7 - row_of(lsb(b));
  return p;
}

// The positions of one level, numbered 0..size()-1 ("local" ids).
class Level {
 public:
  Level(const MaterialIndex& index, int sides, const std::vector<std::uint64_t>& configs,
        std::vector<std::uint32_t>& pos_in_level)
      : n_(index.size()), k_(index.kings_per_slice()), sides_(sides), configs_(configs), pos_(pos_in_level) {
    for (std::size_t i = 0; i < configs_.size(); ++i) pos_[configs_[i]] = static_cast<std::uint32_t>(i);
  }
  std::uint64_t size() const { return sides_ * configs_.size() * k_; }
  std::uint64_t slot(std::uint64_t local) const {
    const std::uint64_t per_side = configs_.size() * k_;
    const std::uint64_t side = local / per_side, rem = local % per_side;
    return side * n_ + configs_[rem / k_] * k_ + rem % k_;
  }
  std::uint64_t local(std::uint64_t slot) const {
    const std::uint64_t side = slot / n_, rest = slot % n_;
    return side * configs_.size() * k_ + std::uint64_t{pos_[rest / k_]} * k_ + rest % k_;
  }

 private:
  std::uint64_t n_, k_;
  int sides_;
  const std::vector<std::uint64_t>& configs_;
  std::vector<std::uint32_t>& pos_;
};

// Distance-ordered work list of (local id, is win) candidates.
class Buckets {
 public:
  void push(std::uint64_t d, std::uint64_t local, bool win) {
    if (d >= b_.size()) b_.resize(d + 1);
    b_[d].push_back(local * 2 + (win ? 1 : 0));
  }
  std::size_t size() const { return b_.size(); }
  std::vector<std::uint64_t>& at(std::size_t d) { return b_[d]; }

 private:
  std::vector<std::vector<std::uint64_t>> b_;
};

class MaterialSolver {
 public:
  MaterialSolver(const Rules& r, const Material& m, const Successors& succ, SolvedTable& out, int threads,
                 const Solver::ProgressFn& progress)
      : r_(r), m_(m), index_(m), succ_(succ), out_(out), threads_(threads), progress_(progress) {}

  SolveStats run() {
    const auto t0 = std::chrono::steady_clock::now();
    const std::uint64_t slots = table_slots(index_);
    out_.material = m_;
    out_.dtw.assign(slots, kUnset);
    out_.dtc.assign(slots, kUnset);
    // Group men configurations by progress.
    std::vector<std::vector<std::uint64_t>> levels;
    for (std::uint64_t c = 0; c < index_.men_configs(); ++c) {
      Bitboard w, b;
      index_.unrank_men(c, w, b);
      const int p = progress(w, b);
      if (static_cast<std::size_t>(p) >= levels.size()) levels.resize(p + 1);
      levels[p].push_back(c);
    }
    std::vector<std::uint32_t> pos_in_level(index_.men_configs());
    const int sides = m_.is_symmetric() ? 1 : 2;
    std::uint64_t done = 0;
    for (std::size_t p = levels.size(); p-- > 0;) {
      if (levels[p].empty()) continue;
      Level level(index_, sides, levels[p], pos_in_level);
      solve_level(level);
      done += level.size();
      if (progress_) progress_(done, slots);
    }
    SolveStats st;
    st.positions = slots;
    for (std::uint64_t i = 0; i < slots; ++i) {
      const Value v = Value::decode(out_.dtw[i]);
      assert(out_.dtw[i] != kUnset && out_.dtc[i] != kUnset);
      if (v.wdl == Wdl::Win) {
        ++st.wins;
        st.longest_win = std::max<int>(st.longest_win, v.plies);
      } else if (v.wdl == Wdl::Loss) {
        ++st.losses;
      } else {
        ++st.draws;
      }
    }
    st.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return st;
  }

 private:
  // Codes of an exit successor: in this material (a man move to a higher
  // level, already final) or in another.
  void exit_codes(const Position& q, std::uint16_t& dtw, std::uint16_t& dtc) const {
    if (material_of(q) == m_ || material_of(q) == m_.flipped()) {
      const std::uint64_t s = locate_slot(index_, q);
      dtw = out_.dtw[s];
      dtc = out_.dtc[s];
      assert(dtw != kUnset && dtc != kUnset);
      return;
    }
    succ_.codes(q, dtw, dtc);
  }

  Facts gather(const Position& p, MoveList& moves) const {
    Facts f;
    generate_moves(r_, p, moves);
    if (moves.empty()) f.no_moves = true;
    f.capture = !moves.empty() && moves.front().is_capture();
    const Bitboard my_kings = p.kings[idx(p.side_to_move)];
    for (const Move& mv : moves) {
      if (!mv.is_capture() && (my_kings & bit(mv.from))) {
        ++f.in_level;
        continue;
      }
      std::uint16_t dtw, dtc;
      exit_codes(apply(p, mv), dtw, dtc);
      const Value v = Value::decode(dtw);
      const bool conversion = mv.is_capture() || mv.promotes;
      const std::uint16_t c = conversion ? 1 : one_more(Value::decode(dtc).plies);
      if (v.wdl == Wdl::Loss) {
        f.win_exit_dtw = std::min(f.win_exit_dtw, one_more(v.plies));
        f.win_exit_dtc = std::min(f.win_exit_dtc, c);
      } else if (v.wdl == Wdl::Win) {
        f.loss_exit_dtw = std::max(f.loss_exit_dtw, one_more(v.plies));
        f.loss_exit_dtc = std::max(f.loss_exit_dtc, c);
      } else {
        f.draw_exit = true;
      }
    }
    return f;
  }

  void solve_level(const Level& level) {
    const std::uint64_t n = level.size();
    std::vector<Facts> facts(n);
#pragma omp parallel num_threads(threads_)
    {
      MoveList moves;
#pragma omp for schedule(dynamic, 4096)
      for (std::int64_t l = 0; l < static_cast<std::int64_t>(n); ++l)
        facts[l] = gather(position_at(index_, level.slot(l)), moves);
    }
    propagate(level, facts, Metric::DTW);
    for (std::uint64_t l = 0; l < n; ++l) {
      std::uint16_t& c = out_.dtw[level.slot(l)];
      if (c == kUnset) c = 0;  // never resolved: a draw
    }
    propagate(level, facts, Metric::DTC);
  }

  // One distance-ordered pass (DTW or DTC) over a level.  The entries of a
  // bucket are processed in parallel: each position is claimed once (atomic
  // flag), counters and queued distances are updated atomically, and new
  // entries (always for a later distance) are merged after the bucket.  The
  // values are the unique fixpoint, so the result does not depend on order.
  void propagate(const Level& level, const std::vector<Facts>& facts, Metric metric) {
    const bool dtc = metric == Metric::DTC;
    std::vector<std::uint16_t>& codes = dtc ? out_.dtc : out_.dtw;
    const std::uint64_t n = level.size();
    std::vector<std::uint8_t> pending(n);        // in-level successors not yet won
    std::vector<std::uint16_t> queued(n, kInf);  // best win distance queued
    std::vector<std::uint8_t> done(n);
    auto wdl_of = [&](std::uint64_t l) { return Value::decode(out_.dtw[level.slot(l)]).wdl; };
    Buckets buckets;
    for (std::uint64_t l = 0; l < n; ++l) {
      const Facts& f = facts[l];
      pending[l] = f.in_level;
      if (f.no_moves) {
        buckets.push(0, l, false);
        continue;
      }
      const Wdl wdl = dtc ? wdl_of(l) : Wdl::Draw;
      if (dtc && wdl == Wdl::Draw) {
        codes[level.slot(l)] = 0;
        done[l] = 1;
        continue;
      }
      const std::uint16_t win_exit = dtc ? f.win_exit_dtc : f.win_exit_dtw;
      const std::uint16_t loss_exit = dtc ? f.loss_exit_dtc : f.loss_exit_dtw;
      if (win_exit != kInf && (!dtc || wdl == Wdl::Win)) {
        buckets.push(win_exit, l, true);
        queued[l] = win_exit;
      } else if (f.in_level == 0 && !f.draw_exit && (!dtc || wdl == Wdl::Loss)) {
        buckets.push(loss_exit, l, false);
      }
    }
    std::vector<std::vector<std::pair<std::uint64_t, std::uint64_t>>> pushes(static_cast<std::size_t>(threads_));
    for (std::size_t d = 0; d < buckets.size(); ++d) {
      const std::vector<std::uint64_t> current = std::move(buckets.at(d));
      buckets.at(d) = {};
      if (current.empty()) continue;
      const auto dist = static_cast<std::uint16_t>(d);
#pragma omp parallel num_threads(threads_) if (current.size() > 2048)
      {
        auto& mine = pushes[static_cast<std::size_t>(omp_get_thread_num())];
#pragma omp for schedule(dynamic, 256)
        for (std::int64_t i = 0; i < static_cast<std::int64_t>(current.size()); ++i) {
          const std::uint64_t l = current[i] >> 1;
          const bool win = current[i] & 1;
          if (std::atomic_ref<std::uint8_t>(done[l]).exchange(1) != 0) continue;
          const std::uint64_t slot = level.slot(l);
          codes[slot] = (win ? Value::win(dist) : Value::loss(dist)).encode();
          for_each_king_unmove(r_, position_at(index_, slot), [&](const Position& p) {
            const std::uint64_t lp = level.local(locate_slot(index_, p));
            const Facts& f = facts[lp];
            if (f.capture || std::atomic_ref<std::uint8_t>(done[lp]).load(std::memory_order_relaxed)) return;
            if (!win) {
              // p moves into a lost position: a win in d + 1 (if it keeps the win).
              if (dtc && wdl_of(lp) != Wdl::Win) return;
              std::atomic_ref<std::uint16_t> q(queued[lp]);
              std::uint16_t old = q.load();
              while (old > dist + 1 && !q.compare_exchange_weak(old, static_cast<std::uint16_t>(dist + 1))) {
              }
              if (old > dist + 1) mine.emplace_back(d + 1, lp * 2 + 1);
            } else {
              if (std::atomic_ref<std::uint8_t>(pending[lp]).fetch_sub(1) != 1) return;
              if (dtc ? wdl_of(lp) != Wdl::Loss : (f.win_exit_dtw != kInf || f.draw_exit)) return;
              const std::uint16_t loss_exit = dtc ? f.loss_exit_dtc : f.loss_exit_dtw;
              mine.emplace_back(std::max<std::uint64_t>(d + 1, loss_exit), lp * 2);
            }
          });
        }
      }
      for (auto& v : pushes) {
        for (auto [at, e] : v) buckets.push(at, e >> 1, e & 1);
        v.clear();
      }
    }
  }

  const Rules& r_;
  Material m_;
  MaterialIndex index_;
  const Successors& succ_;
  SolvedTable& out_;
  int threads_;
  const Solver::ProgressFn& progress_;
};

}  // namespace

void Successors::add(const SolvedTable* table) {
  entries_.push_back(Entry{table->material, table, MaterialIndex(table->material)});
}

void Successors::codes(const Position& q, std::uint16_t& dtw, std::uint16_t& dtc) const {
  if (q.pieces(q.side_to_move) == 0) {
    dtw = dtc = Value::loss(0).encode();
    return;
  }
  const Material c = material_of(q).canonical();
  for (const Entry& e : entries_) {
    if (e.canonical == c) {
      const std::uint64_t s = locate_slot(e.index, q);
      dtw = e.table->dtw[s];
      dtc = e.table->dtc[s];
      return;
    }
  }
  assert(false && "successor material not available");
  dtw = dtc = 0;
}

SolveStats solve_material(const Rules& rules, const Material& m, const Successors& succ, SolvedTable& out,
                          int threads, const Solver::ProgressFn& progress) {
  assert(m.is_canonical());
  return MaterialSolver(rules, m, succ, out, threads, progress).run();
}

}  // namespace damka::retro
