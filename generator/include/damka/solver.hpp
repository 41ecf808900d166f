// In-memory retrograde solver: solves a material and everything it converts
// into, keeping every table in memory.  `damka generate` writes what it solves
// to files; tests compare it against an independent brute-force solver.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "damka/material.hpp"
#include "damka/position.hpp"
#include "damka/rules.hpp"
#include "damka/solved_table.hpp"
#include "damka/value.hpp"

namespace damka {

// SolvedTable and TableSource: solved_table.hpp.

struct SolveStats {
  std::uint64_t positions = 0;  // slots solved
  std::uint64_t wins = 0, draws = 0, losses = 0;
  int longest_win = 0;  // plies (DTW)
  double seconds = 0;
};

// Also a TableSource of the tables it holds.
class Solver : public TableSource {
 public:
  explicit Solver(const Rules& rules, int threads = 1);
  ~Solver();
  Solver(const Solver&) = delete;
  Solver& operator=(const Solver&) = delete;

  // Solves `m` (any orientation) and, first, every material it converts into
  // that is not solved yet.  Materials where a side has no piece are trivial
  // and never stored.
  void solve(const Material& m);
  // Solves exactly one canonical material, all of whose successors must
  // already be available in this solver; returns its statistics.
  SolveStats solve_one(const Material& canonical);
  // Adds a table solved earlier (e.g. loaded from disk).
  void add(SolvedTable table);
  // Frees a table no longer needed as a successor.
  void drop(const Material& canonical);

  // The value of a position whose material has been solved (either colour
  // orientation), through the value oracle (value_oracle.hpp: a capture
  // position from its captures); nullopt if a table it needs is not here.
  std::optional<Value> value(const Position& p, Metric metric) const;
  const SolvedTable* table(const Material& canonical) const;
  const SolvedTable* find(const Material& canonical) const override { return table(canonical); }
  const Rules& rules() const { return rules_; }
  // Called after each level of a material: positions done and total.
  using ProgressFn = std::function<void(std::uint64_t done, std::uint64_t total)>;
  void set_progress(ProgressFn fn) { progress_ = std::move(fn); }

 private:
  const Rules& rules_;
  int threads_;
  ProgressFn progress_;
  std::map<Material, std::unique_ptr<SolvedTable>> tables_;
};

// build_order, successors and successors_closure: material.hpp.

}  // namespace damka
