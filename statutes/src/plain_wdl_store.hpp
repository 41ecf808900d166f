// Private to damka_statutes: the plain WDL of whole materials, 2 bits a
// slot, for the exits of statute-aware counts.
//
// A count pass values every plain-play exit through ValueSource::value():
// a block-cache look-up, and for a capture position a search over its
// captures (Russian up to 5 pieces, the Russian rulebook: 42M such probes,
// 7 % of the report's CPU time).  The materials a count's captures lead
// into have fewer pieces, so they are small beside the material counted
// (a 7-piece material's are 6-piece ones: all of them together take 0.6 GiB
// here) and are read by many passes: each is read once, slot by slot,
// into memory and kept while the store's bytes allow (the least recently
// used dropped first).  A promotion's material has as many pieces, as large
// as the one counted: its exits are probed as before.  The report's walk
// over a material values its capture positions from the same tables
// (PlainWdlView::capture_wdl): one ply over codes in memory instead of an
// oracle search through the block caches.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "damka/expected.hpp"
#include "damka/index.hpp"
#include "damka/material.hpp"
#include "damka/movegen.hpp"
#include "damka/slots.hpp"
#include "damka/value.hpp"

namespace damka {

class ValueSource;

class PlainWdlStore {
 public:
  // One material's plain WDL: the WDL-only value code (value.hpp: 0 draw,
  // 1 win, 2 loss) of every slot.
  struct Table {
    Material material;  // canonical
    MaterialIndex index;
    std::vector<std::uint8_t> bits;  // four slots a byte
    std::uint64_t used = 0;          // when last held (least recently used first out)
    explicit Table(const Material& m) : material(m), index(m) {}
    // The WDL code of a position of this material (either colours).
    std::uint16_t code(const Position& q) const {
      const std::uint64_t s = locate_slot(index, q);
      return static_cast<std::uint16_t>((bits[s >> 2] >> ((s & 3) * 2)) & 3);
    }
  };

  // capacity: bytes of tables held at most (0: none is ever held).
  explicit PlainWdlStore(std::uint64_t capacity) : capacity_(capacity) {}

  // The tables of `materials` (canonical, each with a table in `values`),
  // in that order: each one held already, or read now (values.slots(), on
  // the OpenMP threads) where it fits beside the others of the list, the
  // least recently used of the rest dropped to make room; nullptr where it
  // does not fit.  The pointers stay valid until the next call.  Errors: a
  // read of a table that failed (nothing is kept of it).  Not thread-safe;
  // the tables returned may be read from any thread.
  Expected<std::vector<const Table*>> hold(const ValueSource& values, const std::vector<Material>& materials);

  std::uint64_t bytes() const { return bytes_; }
  std::uint64_t tables_read() const { return reads_; }

 private:
  static std::uint64_t bytes_of(const Material& canonical);

  std::uint64_t capacity_;
  std::uint64_t bytes_ = 0, tick_ = 0, reads_ = 0;
  std::vector<std::unique_ptr<Table>> tables_;
};

// Plain WDL values read from tables held (PlainWdlStore::hold), else
// through the source's value().  Valid while the tables are (until the
// store's next hold()).  Thread-safe (read-only; `moves` per thread).
class PlainWdlView {
 public:
  PlainWdlView(const ValueSource& values, std::vector<const PlainWdlStore::Table*> held);
  bool holds_any() const { return !held_.empty(); }
  // q's plain WDL for its side to move (wdl_only): its material's held
  // table (capture positions too: the codes are the oracle's), else
  // values.value(q, WDL).  A side to move without pieces has lost.
  // Errors: value()'s.  Cost: a scan of the tables held and a
  // locate_slot(), else value()'s.
  Expected<Value> wdl(const Position& q) const;
  // The plain WDL of p, which must capture: capture_wdl (value_oracle.hpp)
  // over wdl() of its captures' successors.  Cost: a capture generation
  // and a wdl() per capture up to the first winning one.
  Expected<Value> capture_wdl(const Position& p, MoveList& moves) const;

 private:
  const ValueSource& values_;
  std::vector<const PlainWdlStore::Table*> held_;
};

}  // namespace damka
