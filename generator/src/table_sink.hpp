// Private to generate(): where the engine's values of one material go as it
// streams them (a material's WDL/DTW/DTC files, or nowhere on a rank that is
// not a split material's writer).
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <vector>

#include "damka/engine.hpp"
#include "damka/env.hpp"
#include "damka/generate.hpp"
#include "damka/table_file.hpp"

namespace damka::generate_detail {

// Writes the files of one material (FORMAT.md) as the engine streams its
// values: open(), then the engine's add() calls in slot order, then
// finish().  Nothing half-written remains if finish() is not reached (each
// file is a TableBuilder's temporary until it finishes).  Not thread-safe
// (the engine calls add() from one thread; add() itself runs `threads`).
class FileSink : public ValueSink {
 public:
  FileSink(const Rules& rules, const std::filesystem::path& dir, const Material& m, const MetricSet& metrics,
           Compression compression, int threads, Env& env, bool one_side = false);
  Status open();
  Status add(std::uint64_t first, std::span<const std::span<const std::uint16_t>> codes) override;
  // Finishes every file and puts their sizes in r.bytes.
  Status finish(TableReport& r);

 private:
  // A distance file's drawn positions are don't care: the WDL file says
  // they are drawn (FORMAT.md 3.5; about 14% smaller DTW and DTC files).
  std::span<const std::uint16_t> without_draws(std::span<const std::uint16_t> codes);

  const Rules& rules_;
  std::filesystem::path dir_;
  Material m_;
  PassList passes_;
  MetricSet metrics_;
  Compression compression_;
  int threads_;
  Env& env_;
  bool one_side_ = false;
  std::unique_ptr<TableBuilder> builders_[3];
  std::vector<std::uint16_t> wdl_, dist_;
};

// Nothing to write: a rank that is not a split's writer (LevelSplit).
class NoSink : public ValueSink {
 public:
  Status add(std::uint64_t, std::span<const std::span<const std::uint16_t>>) override {
    return Error("a rank that does not write a split material received its values");
  }
};

}  // namespace damka::generate_detail
