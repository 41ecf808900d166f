// Independent brute-force solver for tests; see brute_force.hpp.
#include "generator/brute_force.hpp"

#include <algorithm>
#include <cassert>
#include <chrono>
#include <stdexcept>

#include "damka/movegen.hpp"

namespace damka::brute {
namespace {

constexpr std::uint32_t kConversionBit = 0x80000000u;
constexpr std::uint16_t kNoDtc = 0xFFFF;
constexpr std::uint8_t kUndecided = 0, kWin = 1, kLoss = 2;

// Calls f(acc | s) for every set s of exactly k squares of `allowed`.
template <class F>
void for_each_subset(Bitboard allowed, int k, Bitboard acc, F& f) {
  if (k == 0) {
    f(acc);
    return;
  }
  for (Bitboard a = allowed; a != 0; a &= a - 1) {
    const int s = lsb(a);
    // Only squares above s, so each set is produced once.
    const Bitboard above = allowed & ~((bit(s) << 1) - 1);
    if (popcount(above) < k - 1) break;
    for_each_subset(above, k - 1, acc | bit(s), f);
  }
}

std::uint64_t mix(std::uint64_t x) {
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBull;
  x ^= x >> 31;
  return x;
}

std::uint64_t hash_position(const Position& p) {
  const std::uint64_t men = p.men[0] | (std::uint64_t{p.men[1]} << 32);
  const std::uint64_t kings = p.kings[0] | (std::uint64_t{p.kings[1]} << 32);
  return mix(men ^ mix(kings + 0x9E3779B97F4A7C15ull * (1 + static_cast<int>(p.side_to_move))));
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

std::string Counts::name() const {
  std::string s;
  s.append(static_cast<std::size_t>(wk), 'K').append(static_cast<std::size_t>(wm), 'M');
  s += 'v';
  s.append(static_cast<std::size_t>(bk), 'K').append(static_cast<std::size_t>(bm), 'M');
  return s;
}

std::vector<Position> enumerate_positions(const Counts& c, Color side_to_move) {
  std::vector<Position> out;
  const Bitboard all = ~Bitboard{0};
  const Bitboard white_men_ok = all & ~promotion_row(Color::White);
  const Bitboard black_men_ok = all & ~promotion_row(Color::Black);
  auto with_bk = [&](Bitboard wm, Bitboard wk, Bitboard bm) {
    auto put = [&](Bitboard bk) {
      Position p;
      p.men[idx(Color::White)] = wm;
      p.kings[idx(Color::White)] = wk;
      p.men[idx(Color::Black)] = bm;
      p.kings[idx(Color::Black)] = bk;
      p.side_to_move = side_to_move;
      assert(p.is_valid());
      out.push_back(p);
    };
    for_each_subset(all & ~(wm | wk | bm), c.bk, 0, put);
  };
  auto with_bm = [&](Bitboard wm, Bitboard wk) {
    auto f = [&](Bitboard bm) { with_bk(wm, wk, bm); };
    for_each_subset(black_men_ok & ~(wm | wk), c.bm, 0, f);
  };
  auto with_wk = [&](Bitboard wm) {
    auto f = [&](Bitboard wk) { with_bm(wm, wk); };
    for_each_subset(all & ~wm, c.wk, 0, f);
  };
  for_each_subset(white_men_ok, c.wm, 0, with_wk);
  return out;
}

std::vector<Position> enumerate_positions(const Counts& c) {
  std::vector<Position> out = enumerate_positions(c, Color::White);
  std::vector<Position> black = enumerate_positions(c, Color::Black);
  out.insert(out.end(), black.begin(), black.end());
  return out;
}

std::string to_string(const Value& v) {
  switch (v.wdl) {
    case Wdl::Win: return "W" + std::to_string(v.plies);
    case Wdl::Loss: return "L" + std::to_string(v.plies);
    case Wdl::Draw: break;
  }
  return v.plies == 0 ? "D" : "D" + std::to_string(v.plies) + "(?)";
}

std::string to_string(const std::optional<Value>& v) { return v ? to_string(*v) : "none"; }

BruteForce::BruteForce(const Rules& rules, const Counts& material) : rules_(rules) {
  build(enumerate_positions(material));
  solve_dtw();
  solve_dtc();
}

BruteForce::BruteForce(const Rules& rules, const std::vector<Position>& roots) : rules_(rules) {
  build(roots);
  solve_dtw();
  solve_dtc();
}

void BruteForce::grow() {
  const std::size_t capacity = table_.empty() ? 1024 : table_.size() * 2;
  table_.assign(capacity, 0);
  mask_ = capacity - 1;
  for (std::size_t n = 0; n < positions_.size(); ++n) {
    std::uint64_t h = hash_position(positions_[n]) & mask_;
    while (table_[h] != 0) h = (h + 1) & mask_;
    table_[h] = static_cast<std::uint32_t>(n + 1);
  }
}

std::uint32_t BruteForce::insert(const Position& p, bool& inserted) {
  if (2 * (positions_.size() + 1) > table_.size()) grow();
  std::uint64_t h = hash_position(p) & mask_;
  while (table_[h] != 0) {
    const std::uint32_t n = table_[h] - 1;
    if (positions_[n] == p) {
      inserted = false;
      return n;
    }
    h = (h + 1) & mask_;
  }
  if (positions_.size() >= kConversionBit - 1) throw std::length_error("brute force: too many positions");
  const auto n = static_cast<std::uint32_t>(positions_.size());
  positions_.push_back(p);
  table_[h] = n + 1;
  inserted = true;
  return n;
}

std::optional<std::size_t> BruteForce::find(const Position& p) const {
  if (table_.empty()) return std::nullopt;
  std::uint64_t h = hash_position(p) & mask_;
  while (table_[h] != 0) {
    const std::uint32_t n = table_[h] - 1;
    if (positions_[n] == p) return n;
    h = (h + 1) & mask_;
  }
  return std::nullopt;
}

void BruteForce::build(const std::vector<Position>& roots) {
  const auto t0 = std::chrono::steady_clock::now();
  bool inserted = false;
  for (const Position& p : roots) {
    if (!p.is_valid()) throw std::invalid_argument("brute force: invalid root position");
    insert(p, inserted);
  }
  num_roots_ = positions_.size();
  MoveList moves;
  edge_begin_.reserve(positions_.size() + 1);
  // Breadth-first: node n's successors are appended while n is expanded, so
  // the rows of the move graph come out in node order.
  for (std::size_t n = 0; n < positions_.size(); ++n) {
    const Position p = positions_[n];  // copy: insert() may reallocate
    edge_begin_.push_back(static_cast<std::uint32_t>(edge_target_.size()));
    generate_moves(rules_, p, moves, MoveMode::Merged);
    for (const Move& m : moves) {
      const Position q = apply(p, m);
      assert(q.is_valid() && q.side_to_move != p.side_to_move);
      const std::uint32_t t = insert(q, inserted);
      const bool conversion = m.is_capture() || m.promotes;
      edge_target_.push_back(t | (conversion ? kConversionBit : 0));
    }
    if (edge_target_.size() >= 0xFFFFFFF0u) throw std::length_error("brute force: too many moves");
  }
  edge_begin_.push_back(static_cast<std::uint32_t>(edge_target_.size()));
  stats_.roots = num_roots_;
  stats_.nodes = positions_.size();
  stats_.edges = edge_target_.size();
  stats_.seconds_graph = seconds_since(t0);
}

void BruteForce::solve_dtw() {
  const auto t0 = std::chrono::steady_clock::now();
  const std::size_t n = positions_.size();
  state_.assign(n, kUndecided);
  dtw_plies_.assign(n, 0);
  std::vector<std::uint32_t> undecided;
  // Iteration 0: no legal move (which includes having no piece) loses.
  for (std::size_t u = 0; u < n; ++u) {
    if (edge_begin_[u] == edge_begin_[u + 1]) {
      state_[u] = kLoss;
      dtw_plies_[u] = 0;
    } else {
      undecided.push_back(static_cast<std::uint32_t>(u));
    }
  }
  int last = 0;
  std::vector<std::pair<std::uint32_t, std::uint8_t>> decided;
  for (int k = 1;; ++k) {
    decided.clear();
    for (const std::uint32_t u : undecided) {
      bool win = false, all_wins = true;
      int longest_win = -1;
      for (std::uint32_t e = edge_begin_[u]; e < edge_begin_[u + 1]; ++e) {
        const std::uint32_t t = edge_target_[e] & ~kConversionBit;
        if (state_[t] == kLoss && dtw_plies_[t] == k - 1) {
          win = true;
          break;
        }
        if (state_[t] == kWin)
          longest_win = std::max<int>(longest_win, dtw_plies_[t]);
        else
          all_wins = false;
      }
      if (win)
        decided.emplace_back(u, kWin);
      else if (all_wins && longest_win == k - 1)
        decided.emplace_back(u, kLoss);
    }
    if (decided.empty()) break;
    // Commit after the sweep: iteration k sees only what iterations < k decided.
    for (const auto& [u, s] : decided) {
      state_[u] = s;
      dtw_plies_[u] = static_cast<std::uint16_t>(k);
    }
    last = k;
    std::erase_if(undecided, [&](std::uint32_t u) { return state_[u] != kUndecided; });
  }
  stats_.dtw_iterations = last;
  stats_.wins = stats_.draws = stats_.losses = 0;
  for (std::size_t u = 0; u < n; ++u) {
    if (state_[u] == kWin) ++stats_.wins;
    else if (state_[u] == kLoss) ++stats_.losses;
    else ++stats_.draws;
  }
  stats_.seconds_dtw = seconds_since(t0);
}

void BruteForce::solve_dtc() {
  const auto t0 = std::chrono::steady_clock::now();
  const std::size_t n = positions_.size();
  dtc_plies_.assign(n, kNoDtc);
  std::vector<std::uint32_t> pending;
  for (std::size_t u = 0; u < n; ++u) {
    if (state_[u] == kUndecided) continue;  // draws have no DTC distance
    if (edge_begin_[u] == edge_begin_[u + 1]) {
      assert(state_[u] == kLoss);
      dtc_plies_[u] = 0;  // no move: loss with DTC 0
    } else {
      pending.push_back(static_cast<std::uint32_t>(u));
    }
  }
  constexpr int kUnknown = 1 << 30;
  int last = 0;
  std::vector<std::uint32_t> decided;
  for (int k = 1;; ++k) {
    decided.clear();
    for (const std::uint32_t u : pending) {
      if (state_[u] == kWin) {
        // Least cost over the moves that keep the win.
        int best = kUnknown;
        for (std::uint32_t e = edge_begin_[u]; e < edge_begin_[u + 1]; ++e) {
          const std::uint32_t t = edge_target_[e] & ~kConversionBit;
          if (state_[t] != kLoss) continue;
          int cost = kUnknown;
          if (edge_target_[e] & kConversionBit)
            cost = 1;
          else if (dtc_plies_[t] != kNoDtc)
            cost = 1 + dtc_plies_[t];
          best = std::min(best, cost);
        }
        // Anything cheaper than k would have been decided by an earlier iteration.
        assert(best >= k);
        if (best == k) decided.push_back(u);
      } else {
        // Greatest cost over all moves (all lead to wins for the opponent).
        int worst = 0;
        bool unknown = false;
        for (std::uint32_t e = edge_begin_[u]; e < edge_begin_[u + 1]; ++e) {
          const std::uint32_t t = edge_target_[e] & ~kConversionBit;
          assert(state_[t] == kWin);
          if (edge_target_[e] & kConversionBit) {
            worst = std::max(worst, 1);
          } else if (dtc_plies_[t] != kNoDtc) {
            worst = std::max(worst, 1 + dtc_plies_[t]);
          } else {
            unknown = true;
            break;
          }
        }
        assert(unknown || worst >= k);
        if (!unknown && worst == k) decided.push_back(u);
      }
    }
    if (decided.empty()) break;
    for (const std::uint32_t u : decided) dtc_plies_[u] = static_cast<std::uint16_t>(k);
    last = k;
    std::erase_if(pending, [&](std::uint32_t u) { return dtc_plies_[u] != kNoDtc; });
  }
  stats_.dtc_iterations = last;
  stats_.dtc_missing = pending.size();
  stats_.seconds_dtc = seconds_since(t0);
}

Value BruteForce::dtw_of_node(std::size_t node) const {
  switch (state_[node]) {
    case kWin: return Value::win(dtw_plies_[node]);
    case kLoss: return Value::loss(dtw_plies_[node]);
    default: return Value::draw();
  }
}

Value BruteForce::dtc_of_node(std::size_t node) const {
  switch (state_[node]) {
    case kWin: return Value::win(dtc_plies_[node]);
    case kLoss: return Value::loss(dtc_plies_[node]);
    default: return Value::draw();
  }
}

std::optional<Value> BruteForce::dtw(const Position& p) const {
  const auto node = find(p);
  if (!node) return std::nullopt;
  return dtw_of_node(*node);
}

std::optional<Value> BruteForce::dtc(const Position& p) const {
  const auto node = find(p);
  if (!node) return std::nullopt;
  return dtc_of_node(*node);
}

std::optional<Value> BruteForce::wdl(const Position& p) const {
  const auto v = dtw(p);
  if (!v) return std::nullopt;
  return v->wdl_only();
}

std::vector<Position> BruteForce::positions_of_root_material() const {
  return {positions_.begin(), positions_.begin() + static_cast<std::ptrdiff_t>(num_roots_)};
}

std::vector<BruteForce::Edge> BruteForce::successors(std::size_t node) const {
  std::vector<Edge> out;
  for (std::uint32_t e = edge_begin_[node]; e < edge_begin_[node + 1]; ++e)
    out.push_back({edge_target_[e] & ~kConversionBit, (edge_target_[e] & kConversionBit) != 0});
  return out;
}

}  // namespace damka::brute
