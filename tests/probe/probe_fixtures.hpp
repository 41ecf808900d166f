// Shared by the probe tests: tables generated once per test process into a
// temporary directory (removed at exit), and in-memory Solvers to compare with.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>

#include "damka/generate.hpp"
#include "damka/material.hpp"
#include "damka/solver.hpp"
#include "damka/table_paths.hpp"

namespace damka::probe_test {

// A directory removed when the process ends.
inline const std::filesystem::path& scratch_root() {
  struct Root {
    std::filesystem::path path;
    Root() {
      path = std::filesystem::temp_directory_path() / ("damka_probe_test_" + std::to_string(::getpid()));
      std::filesystem::remove_all(path);
      std::filesystem::create_directories(path);
    }
    ~Root() {
      std::error_code ec;
      std::filesystem::remove_all(path, ec);
    }
  };
  static Root root;
  return root.path;
}

// A fresh empty directory under the scratch root.
inline std::filesystem::path fresh_dir(const std::string& name) {
  static int counter = 0;
  auto p = scratch_root() / (name + "_" + std::to_string(++counter));
  std::filesystem::create_directories(p);
  return p;
}

// A table directory (generated once per process, never modified) with
// exactly the tables of the variant with up to `max_pieces` pieces and, if
// `only` is given, `only` and what it needs.
inline const std::filesystem::path& tables(Variant v, int max_pieces, std::optional<Material> only = std::nullopt) {
  static std::mutex mu;
  static std::map<std::tuple<int, int, std::string>, std::filesystem::path> dirs;
  std::lock_guard lock(mu);
  auto key = std::make_tuple(static_cast<int>(v), max_pieces, only ? only->name() : std::string());
  auto it = dirs.find(key);
  if (it == dirs.end()) {
    GenerateOptions opt;
    opt.max_pieces = max_pieces;
    opt.out = scratch_root() / ("tables_" + std::string(rules_of(v).name) + "_" + std::to_string(max_pieces) +
                                (only ? "_" + only->name() : std::string()));
    opt.threads = 1;
    auto r = generate(rules_of(v), opt);
    if (!r) ADD_FAILURE() << "generate: " << r.message();
    if (only) {
      opt.only = only;
      r = generate(rules_of(v), opt);
      if (!r) ADD_FAILURE() << "generate: " << r.message();
    }
    it = dirs.emplace(key, opt.out).first;
  }
  return it->second;
}

// A solver per variant, solving what is asked of it (kept for the process).
inline Solver& solver(Variant v) {
  static std::mutex mu;
  static std::map<int, std::unique_ptr<Solver>> solvers;
  std::lock_guard lock(mu);
  auto& s = solvers[static_cast<int>(v)];
  if (!s) s = std::make_unique<Solver>(rules_of(v), 1);
  return *s;
}

inline Material mat(const char* name) { return *Material::parse(name); }

// Copies the family folder of `rules` from `from` into a fresh directory.
inline std::filesystem::path copy_tables(const std::filesystem::path& from, const Rules& rules,
                                         const std::string& name) {
  const auto to = fresh_dir(name);
  std::filesystem::copy(table_dir(from, rules), table_dir(to, rules), std::filesystem::copy_options::recursive);
  return to;
}

// Flips every bit of the byte at `offset` of a file.
inline void flip_byte(const std::filesystem::path& file, std::uint64_t offset) {
  std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
  ASSERT_TRUE(f.good()) << file;
  f.seekg(static_cast<std::streamoff>(offset));
  char c = 0;
  f.read(&c, 1);
  c = static_cast<char>(~c);
  f.seekp(static_cast<std::streamoff>(offset));
  f.write(&c, 1);
}

}  // namespace damka::probe_test
