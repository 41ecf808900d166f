// The tests' reference for reading table files: every table read whole
// (load_solved_table) and kept, as `damka statutes` read them before the
// bounded TableDirValues.  Counts kept in memory.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>

#include "damka/solver.hpp"
#include "damka/statutes.hpp"

namespace statutes_test {

class WholeTableValues final : public damka::ValueSource {
 public:
  WholeTableValues(const damka::Rules& rules, std::filesystem::path dir);
  // The table of a canonical material, loaded on first use and kept; nullptr
  // if its files are missing.  Thread-safe (one mutex).
  damka::Expected<const damka::SolvedTable*> table(const damka::Material& canonical) const;
  bool has_table(const damka::Material& canonical) const override;
  std::string describe() const override;
  damka::Expected<damka::Value> value(const damka::Position& p, damka::Metric metric) const override;

 private:
  std::filesystem::path dir_;
  mutable std::recursive_mutex mu_;
  mutable std::map<damka::Material, std::unique_ptr<damka::SolvedTable>> loaded_;
};

}  // namespace statutes_test
