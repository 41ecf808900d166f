// Private to generate(): finished materials kept in memory for the materials
// built after them.
//
// Reading a successor from its file costs a block decode on a cache miss
// and, where the successor's side to move must capture (half the positions
// of a 5-piece table), a search over its captures (value_oracle.hpp).  The
// engine knows every position's true value when it finishes a material
// (BuildOptions::resolved), so a material that later materials convert
// into is kept as one code per slot and read with one index computation:
// about a sixth of a 5-piece build's CPU time.
//
// Which tables stay is decided by the memory budget alone (the same way in
// a build and in its dry run, so the dry run predicts the peak): before a
// material is built, tables that no material still to be built converts
// into are dropped, then the largest ones until the tables plus the
// material's own plan fit the budget (generate() gives them 7/8 of
// --memory); the material is kept after its build when a later material
// converts into it and it fits beside the rest.
// A material whose files are there is loaded into memory the same way when
// a material to build converts into it, it fits, and it is no larger than
// the positions still to build that convert into it: an earlier run's (or a
// resumed run's), or this run's, built before and not held (dropped by
// make_room, or not kept when it was built), where the material converts
// into it by captures.  (Reading 3Kv1K2M's successors from memory instead
// of files made its build 1.7x faster.  A whole `-n 7` from an empty folder,
// which did not load the 6-piece tables it had built and dropped, took 20%
// more CPU in the 7-piece materials' units than with the 6-piece set
// present.  This run's promotion successors stay in their files: loading
// 3K1Mv3K for 2K2Mv3K took 13.5 s and left its units no faster.)  Loading reads the
// stored entries in one pass over the positions; a position that must
// capture holds kLazyCode until a reader first reads it, which resolves it
// by the oracle's search over its captures and writes the true code in its
// place (file_successors.cpp).  So only the capture positions a build reads
// are searched: searching all of them at load time was half of `-m
// 2K2Mv1K1M`'s time with the 6-piece set present (50.2 s; 36.2 s now).
// A table this run built and then dropped for room while materials still
// to build read it is loaded again from a file of its true codes instead
// (saved_codes.hpp: make_room hands the codes over, generate() writes them),
// so none of its capture positions is searched: Russian 4Kv1K2M's units
// took 57 s with its 6-piece tables' capture positions resolved against
// 81 s resolving them as read (WDL, the 7-piece promotion file read through).
// Keeping tables changes no value: the files are the same with or without
// (tested).  Not thread-safe; readers (FileSuccessors) hold the codes they
// use (shared ownership), so dropping a table never invalidates a reader.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <utility>
#include <vector>

#include "damka/huge_pages.hpp"
#include "damka/material.hpp"

namespace damka {

// The code a loaded table holds for a capture position until it is read
// (a loss in 32766 plies would encode to it: no table comes near).
inline constexpr std::uint16_t kLazyCode = 0xFFFE;

class ResidentTables {
 public:
  // A slot's true code, or kLazyCode (a loaded table's capture position
  // not read yet): readers read and write slots through std::atomic_ref.
  using Codes = std::shared_ptr<BigVector<std::uint16_t>>;

  // `order`: the run's materials in build order; `build[i]`: whether
  // order[i] is built by this run (the others' files are present: they are
  // never resident).
  ResidentTables(std::vector<Material> order, std::vector<bool> build);

  // Whether tables dropped while still needed are saved (below; off by
  // default): generate() and its dry run turn it on.
  void save_dropped(bool on) { save_dropped_ = on; }
  // Before building order[i], whose plan needs `need` bytes (its own
  // resolved codes included when keep(i) says so) of `budget`: drops the
  // tables no material from order[i] on converts into, then the largest of
  // those order[i] does not read until bytes() + need + want <= budget
  // (`want`: room to load the tables it captures into, to_load), then the
  // largest of any until bytes() + need <= budget.  With save_dropped, a table
  // dropped while a material from order[i] on still converts into it is
  // marked saved (saved()), and its codes (a build's, not a dry run's) are
  // handed to the caller by take_dropped() to be written to a temporary
  // file (saved_codes.hpp).
  void make_room(std::size_t i, std::uint64_t need, std::uint64_t budget, std::uint64_t want = 0);
  // The codes make_room dropped and marked saved since the last call.
  std::vector<std::pair<Material, Codes>> take_dropped();
  // Whether m's true codes are in a saved file (make_room dropped it while a
  // later material still reads it): loading it again is one sequential read.
  // unsave(): its file could not be written (or is no longer needed).
  bool saved(const Material& m) const { return saved_.count(m) != 0; }
  void unsave(const Material& m) { saved_.erase(m); }
  // The bytes of the saved tables a material from order[from] on reads:
  // the saved files on disk while order[from] is built (the dry run's
  // temporary disk).  Cost: microseconds.
  std::uint64_t saved_bytes(std::size_t from) const;
  // Whether a material from order[from] on, built by this run, converts
  // into m.  Cost: a map lookup.
  bool needed_from(std::size_t from, const Material& m) const;
  // Whether order[i] should be kept after its build (a later material
  // converts into it and its codes fit beside the tables kept and its own
  // plan, `need` bytes without them).
  bool keep(std::size_t i, std::uint64_t need, std::uint64_t budget) const;
  // The materials to load from their files before building order[i], in
  // `room` bytes: order[i]'s successors whose files are present (not built
  // by this run, or built by it and with fewer pieces than order[i]) and
  // not held, smallest first, each at most as large as the positions still
  // to build from order[i] on that convert into it.  (A saved table is
  // chosen the same way: its faster load changes no plan.)
  // Returned as indices into the order.  Cost: microseconds.
  std::vector<std::size_t> to_load(std::size_t i, std::uint64_t room) const;
  // The bytes the materials of the order that order[i] converts into by
  // captures (fewer pieces) take in memory: all of them, or those not held
  // (`missing`).  Cost: microseconds.
  std::uint64_t capture_bytes(std::size_t i, bool missing = false) const;
  // Adds order[i]'s codes (null in a dry run: only the size counts).
  void add(std::size_t i, Codes codes);

  // The codes of a resident material (canonical), or null.
  const Codes* find(const Material& canonical) const;
  // Whether a material (canonical) is held, codes or (dry run) size only.
  bool holds(const Material& canonical) const;
  std::uint64_t bytes() const { return bytes_; }
  const Material& material(std::size_t i) const { return order_[i]; }
  // Bytes of order[i]'s codes if it were kept.
  std::uint64_t bytes_of(std::size_t i) const;

 private:
  struct Table {
    Material canonical;
    std::uint64_t bytes;
    Codes codes;
  };

  std::vector<Material> order_;
  std::vector<bool> build_;
  std::map<Material, std::vector<std::size_t>> readers_;  // the indices built by this run that convert into
                                                         // it, ascending
  std::map<Material, std::size_t> at_;        // index in the order
  std::vector<Table> tables_;
  std::uint64_t bytes_ = 0;
  bool save_dropped_ = false;
  std::set<Material> saved_;
  std::vector<std::pair<Material, Codes>> dropped_;
};

}  // namespace damka
