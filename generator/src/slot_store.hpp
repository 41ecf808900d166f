// Private to the engine: the finished values of a material by slot, per
// pass, while it is built (engine.cpp's flush_level writes each level's
// values, the sink then reads them in slot order): in memory, or, when the
// memory plan spills (MemoryPlan::spill), in a temporary file of the Env.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <vector>

#include "damka/env.hpp"
#include "damka/expected.hpp"
#include "damka/huge_pages.hpp"
#include "damka/material.hpp"
#include "engine_layout.hpp"

namespace damka::engine_detail {

// Not thread-safe: one thread writes and reads at a time (the engine's
// orchestrating thread).
class SlotStore {
 public:
  SlotStore(std::uint64_t slots, int passes) : slots_(slots), passes_(passes) {}
  // Removes the temporary file, if any.
  ~SlotStore();
  SlotStore(const SlotStore&) = delete;
  SlotStore& operator=(const SlotStore&) = delete;

  // In memory (huge pages where the system has them; throws std::bad_alloc
  // when there is no memory), or spilled: a temporary file
  // "<dir>/<material>.levels.tmp.<pid>.<random>" created through `env`
  // (which must outlive the store), named like the table writer's so that
  // a run after a kill removes it (output_lock.hpp).  Io when it cannot be
  // created.
  // In memory, the arrays come from `kept` where given (KeptArrays, which
  // must outlive the store: the destructor gives them back to it; what else
  // it holds stays there for the caller to take or release); a spilled
  // store releases what `kept` holds first.
  Status open(bool spill, const std::filesystem::path& dir, const Material& m, Env& env, KeptArrays* kept = nullptr);
  // Stores codes of slots [first, first + n) of `pass`.  Cost: a copy, or
  // one write of 2 n bytes.  Errors (spilled): the Env's, naming the file.
  Status write(int pass, std::uint64_t first, const std::uint16_t* codes, std::uint64_t n);
  // Codes of slots [first, first + n) of `pass` into `out` (resized).
  Status read(int pass, std::uint64_t first, std::uint64_t n, std::vector<std::uint16_t>& out);
  // Values held in memory (not spilled): pass's array, slot-indexed; else null.
  std::uint16_t* memory(int pass) { return file_ ? nullptr : mem_[pass]; }

 private:
  std::uint64_t slots_;
  int passes_;
  std::uint16_t* mem_[kMaxPasses] = {};  // huge_alloc's, slots_ * 2 bytes each
  KeptArrays* kept_ = nullptr;
  Env* env_ = nullptr;
  std::unique_ptr<File> file_;  // spilled
  std::filesystem::path path_;
};

}  // namespace damka::engine_detail
