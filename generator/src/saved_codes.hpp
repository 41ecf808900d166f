// Private to generate(): the true codes of finished tables that
// ResidentTables dropped from memory while materials still to build read
// them, each in a temporary file beside the tables.  Loading such a table
// again is one sequential read, where a load from its table files (or a
// read through them) resolves every capture position it reads by the
// oracle's search over its captures (resident_tables.hpp).  Russian -n 7
// with all metrics drops and loads again some twenty 6-piece tables.
#pragma once

#include <filesystem>
#include <map>

#include "damka/env.hpp"
#include "damka/expected.hpp"
#include "damka/huge_pages.hpp"
#include "damka/material.hpp"
#include "resident_tables.hpp"

namespace damka {

// Not thread-safe (generate()'s thread).  Destroying it removes its files;
// a killed run's are removed by the next run in the folder (their names are
// the Env's temporary names, output_lock.hpp).
class SavedCodes {
 public:
  // Files go to `dir` (the tables' folder) through `env`, which must
  // outlive this.
  SavedCodes(std::filesystem::path dir, Env& env) : dir_(std::move(dir)), env_(&env) {}
  ~SavedCodes();
  SavedCodes(const SavedCodes&) = delete;
  SavedCodes& operator=(const SavedCodes&) = delete;

  // Writes m's codes (canonical; one per slot) to a new temporary file,
  // unless one is there already.  Io naming the file (a full disk: the
  // caller reads m from its table files instead).  Cost: one sequential
  // write of 2 bytes a slot.
  Status save(const Material& m, const BigVector<std::uint16_t>& codes);
  bool has(const Material& m) const { return files_.count(m) != 0; }
  // m's codes read back (has(m) must hold), their pages from `pool` (may be
  // null; it must outlive them).  Io naming the file, or out of memory.
  // Cost: one sequential read of 2 bytes a slot.
  Expected<ResidentTables::Codes> load(const Material& m, KeptArrays* pool) const;
  // Removes the files of the materials that no material from order[from]
  // on reads (and marks them not saved in `resident`).
  void forget_unneeded(ResidentTables& resident, std::size_t from);

 private:
  struct Saved {
    std::unique_ptr<File> file;
    std::filesystem::path path;
    std::uint64_t slots = 0;
  };
  void remove(Saved& s);
  std::filesystem::path dir_;
  Env* env_;
  std::map<Material, Saved> files_;
};

}  // namespace damka
