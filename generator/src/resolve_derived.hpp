// Private to the generator: the one place where a whole table read from a
// file gets the true values of its derived entries (value_oracle.hpp: the
// side to move must capture; a file may hold anything there, table_file.hpp
// kDontCareCode).  load_solved_table calls it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string_view>
#include <vector>

#include "damka/env.hpp"
#include "damka/expected.hpp"
#include "damka/material.hpp"
#include "damka/solver.hpp"
#include "damka/rules.hpp"
#include "damka/value.hpp"

namespace damka {

class FileSuccessors;

// The successor files of one material and metric (FileSuccessors::open,
// 16 MiB of shared cache per OpenMP thread), opened on the first call that needs them
// and then shared: load_solved_table's calls (resolve_derived, the side a
// one-side file leaves out) open each file once.  One thread at a time;
// the source returned is then thread-safe (FileSuccessors).
class SuccessorFiles {
 public:
  // Files are read through `env`, which must outlive this object.
  SuccessorFiles(const Rules& rules, std::filesystem::path dir, const Material& canonical, Metric metric,
                 Env& env = default_env());
  ~SuccessorFiles();
  SuccessorFiles(const SuccessorFiles&) = delete;
  SuccessorFiles& operator=(const SuccessorFiles&) = delete;
  // The open files of every material `canonical` converts into, or null
  // when it converts into none.  An open that fails is an error
  // "<canonical>: <purpose>: <why>" (and is tried again on the next call).
  // Cost: the first successful call opens the files (headers and block
  // tables); later calls nothing.
  Expected<const FileSuccessors*> get(std::string_view purpose);

 private:
  const Rules& rules_;
  std::filesystem::path dir_;
  Material canonical_;
  Metric metric_;
  Env* env_;
  std::unique_ptr<FileSuccessors> files_;
};

// codes: the whole `metric` table of `canonical` (slot order, as read from
// its file).  Replaces the entry of every derived position by the oracle's
// value, searching its captures; stored entries are left as they are.  The
// search reads the materials `canonical` converts into (transitively):
// from `loaded` when it holds every one of them (tables with true values
// in every entry, e.g. loaded and resolved before; for WDL, dtw may hold
// WDL or DTW codes), else from `files` (`canonical`'s and `metric`'s: fails
// naming the first file that is missing or unreadable).  Returns the number
// of derived entries.
// Cost: one position_at() and has_capture() per slot, and for each derived
// slot a search over its captures: memory reads from `loaded`, else reads
// through a 16 MiB block cache per thread.  Threads: `threads` OpenMP
// threads (0: the OpenMP default).  The result does not depend on them or
// on where the successors are read from.  `loaded` is only read.
Expected<std::uint64_t> resolve_derived(const Rules& rules, const Material& canonical, Metric metric,
                                        std::vector<std::uint16_t>& codes, SuccessorFiles& files,
                                        const TableSource* loaded = nullptr, int threads = 0);

}  // namespace damka
