// FileSuccessors: see file_successors.hpp.
#include "file_successors.hpp"

#include <atomic>
#include <cassert>
#include <chrono>
#include <optional>
#include <set>

#include "damka/material_number.hpp"
#include "damka/slots.hpp"
#include "damka/solver.hpp"
#include "damka/table_paths.hpp"
#include "damka/value_oracle.hpp"

namespace damka {
namespace {


// material_of(q) by four 32-bit loads.  The positions this reader is asked
// about were just written field by field (apply(), through memory: its
// colour index is a variable); the one 128-bit load into which the compiler
// folds material_of's four popcounts cannot take its bytes from those
// stores and waits for them to reach the cache: a third of code()'s time,
// about 1% of a 6-piece build's CPU.  The empty asm puts each field in a
// register of its own.
Material material_of_fresh(const Position& q) {
  Bitboard f[4] = {q.men[0], q.kings[0], q.men[1], q.kings[1]};
  asm("" : "+r"(f[0]), "+r"(f[1]), "+r"(f[2]), "+r"(f[3]));
  return {popcount(f[0]), popcount(f[1]), popcount(f[2]), popcount(f[3])};
}

// Stored entries through the source's block cache (format's CachedTable,
// shared by its readers); values through the oracle.
class FileReader : public FileSuccessorReader {
 public:
  FileReader(const FileSuccessors& source, const std::vector<FileSuccessors::Entry>& entries, const Rules& rules,
             Metric metric)
      : source_(source), entries_(entries), rules_(rules), metric_(metric) {}

  std::uint16_t code(const Position& q) override {
    // A resident material holds every position's true code (no search) but
    // a loaded table's capture positions not read yet (kLazyCode): resolved
    // here by the search below and written in place.  Any reader may write
    // a slot, always its true code: the codes never depend on who was
    // first.  (code() is never called from inside a search: the nested
    // search has the thread's move lists to itself.)
    if (q.pieces(q.side_to_move) == 0) return Value::loss(0).encode();
    std::optional<std::atomic_ref<std::uint16_t>> lazy;  // the slot to resolve
    if (const FileSuccessors::Entry* e = entry_of(material_of_fresh(q).canonical()); e != nullptr && e->resident) {
      const std::atomic_ref<std::uint16_t> at((*e->resident)[locate_slot(e->index, q)]);
      const std::uint16_t c = at.load(std::memory_order_relaxed);
      if (c != kLazyCode) return c;
      lazy.emplace(at);
    }
    // Resolved values of recent positions of materials read from files (a
    // capture position costs a search), keyed by the position itself: a hit
    // costs no ranking.  A lazy slot is its own cache once resolved.
    Resolved* r = nullptr;
    if (!lazy) {
      r = &resolved_[resolved_line(q)];
      if (r->valid && r->same(q)) return r->code;
    }
    Value v;
    if (oracle_value(
            rules_, q, metric_, [this](const Position& s, Ask ask, Value& out) { return stored(s, ask, out); },
            [this](const Position& s) { return side_stored(s); },
            [this](const Position& s, Ask ask, Value& out) { return known(s, ask, out); }, v) != Read::Ok)
      return 0;
    if (lazy)
      lazy->store(v.encode(), std::memory_order_relaxed);
    else
      *r = Resolved(q, v.encode());
    return v.encode();
  }

  std::uint16_t stored_code(const Material& m, const Position& p, std::uint64_t slot) override {
    const FileSuccessors::Entry* e = entry_of(m);
    // What code(p) would come to: the oracle looks a stored position up,
    // as stored() does (the lookup's Ask::Value).
    if (e == nullptr || e->resident || !e->file->header().stores_slot(slot)) return code(p);
    Value v;
    return stored_at(*e, slot, Ask::Value, v) == Read::Ok ? v.encode() : 0;
  }

 private:
  enum class Read : std::uint8_t { Ok = 0, Failed = 1 };

  // The entry of an opened material, or null.
  const FileSuccessors::Entry* entry_of(const Material& c) {
    if (last_ < 0 || entries_[last_].canonical != c) last_ = source_.find(c);
    return last_ < 0 ? nullptr : &entries_[last_];
  }

  // Whether `ask` wants the WDL alone of a position whose WDL is w: asked
  // for, or not lost where only a loss's distance is (Ask, value_oracle.hpp).
  static bool wdl_only(Ask ask, Wdl w) { return ask == Ask::Wdl || (ask == Ask::IfLost && w != Wdl::Loss); }

  // A resident material's value of q, capture positions included (the
  // oracle then neither searches q nor generates its captures, nor asks
  // stored()), as `ask` asks it; false for a material read from its files.
  // A capture position a loaded table has not resolved yet (kLazyCode) is
  // not known: the search goes on over its captures (it must capture, so
  // the search never asks stored() for it).
  bool known(const Position& q, Ask ask, Value& out) {
    const FileSuccessors::Entry* e = entry_of(material_of_fresh(q).canonical());
    if (e == nullptr || !e->resident) return false;
    const std::uint16_t c =
        std::atomic_ref<std::uint16_t>((*e->resident)[locate_slot(e->index, q)]).load(std::memory_order_relaxed);
    if (c == kLazyCode) return false;
    out = Value::decode(c);
    if (wdl_only(ask, out.wdl)) out = out.wdl_only();
    return true;
  }

  // Whether q's entry is stored for its side to move, or q is drawn (a
  // one-side distance file leaves the other side to the oracle's search,
  // FORMAT.md 3.5, one side to move).  A failure here is the lookup's to report: true.
  bool side_stored(const Position& q) {
    const Material c = material_of_fresh(q).canonical();
    if (entry_of(c) == nullptr) return true;
    const FileSuccessors::Entry& e = entries_[last_];
    if (e.resident || !e.wdl || e.file->header().stored_side == StoredSide::Both) return true;
    const std::uint64_t slot = locate_slot(e.index, q);
    if (e.file->header().stores_slot(slot)) return true;
    std::uint16_t wdl = 0;
    return entry(*e.wdl, slot, wdl) != Read::Ok || Value::decode(wdl).wdl == Wdl::Draw;
  }

  // The stored entry of a position of an opened material read from its
  // files (error_ otherwise), in this reader's metric or its WDL alone, as
  // the oracle asks (Ask, value_oracle.hpp).  A resident material never
  // gets here: code() answers q itself and known() every successor.
  Read stored(const Position& q, Ask ask, Value& out) {
    const Material c = material_of_fresh(q).canonical();
    if (entry_of(c) == nullptr) {
      if (error_.empty()) error_ = "no table of successor material " + c.name() + " was opened";
      return Read::Failed;
    }
    const FileSuccessors::Entry& e = entries_[last_];
    assert(!e.resident);
    return stored_at(e, locate_slot(e.index, q), ask, out);
  }

  // stored() of the position at `slot` of e's material.
  Read stored_at(const FileSuccessors::Entry& e, std::uint64_t slot, Ask ask, Value& out) {
    std::uint16_t code = 0;
    if (!e.wdl) {
      if (Read r = entry(*e.file, slot, code); r != Read::Ok) return r;
      out = Value::decode(code);
      return Read::Ok;
    }
    // A distance file: whether the position is drawn is the WDL file's (a
    // drawn position needs no distance block).
    std::uint16_t wdl = 0;
    if (Read r = entry(*e.wdl, slot, wdl); r != Read::Ok) return r;
    if (wdl_only(ask, Value::decode(wdl).wdl)) {
      out = Value::decode(wdl).wdl_only();
      return Read::Ok;
    }
    if (Value::decode(wdl).wdl != Wdl::Draw)
      if (Read r = entry(*e.file, slot, code); r != Read::Ok) return r;
    if (!distance_value(wdl, code, out)) {
      if (error_.empty())
        error_ = e.file->reader().path().string() + ": slot " + std::to_string(slot) + " disagrees with " +
                 e.wdl->reader().path().string() + " on who wins";
      return Read::Failed;
    }
    return Read::Ok;
  }

  // The entry of `slot` in `file`, through the source's block cache; a
  // miss's read and decoding count as the phase profile's reads.
  Read entry(const CachedTable& file, std::uint64_t slot, std::uint16_t& code) {
    if (file.cached_code(slot, &code)) return Read::Ok;
    const auto read_start = std::chrono::steady_clock::now();
    const Status s = file.read_code(slot, &code);
    read_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - read_start).count();
    if (!s.ok()) {
      if (error_.empty()) {
        error_ = s.message();
        error_code_ = s.code();
      }
      return Read::Failed;
    }
    return Read::Ok;
  }

  static constexpr int kResolvedBits = 12;
  struct Resolved {
    Resolved() = default;
    Resolved(const Position& q, std::uint16_t c)
        : men{q.men[0], q.men[1]}, kings{q.kings[0], q.kings[1]}, code(c),
          black(q.side_to_move == Color::Black), valid(true) {}
    bool same(const Position& q) const {
      return men[0] == q.men[0] && men[1] == q.men[1] && kings[0] == q.kings[0] && kings[1] == q.kings[1] &&
             black == (q.side_to_move == Color::Black);
    }
    Bitboard men[2] = {0, 0}, kings[2] = {0, 0};
    std::uint16_t code = 0;
    bool black = false, valid = false;
  };
  static std::size_t resolved_line(const Position& q) {
    std::uint64_t h = (std::uint64_t{q.men[0]} << 32 | q.men[1]) * 0x9E3779B97F4A7C15ull;
    h ^= (std::uint64_t{q.kings[0]} << 32 | q.kings[1]) + (q.side_to_move == Color::Black);
    h *= 0xC2B2AE3D27D4EB4Full;
    return static_cast<std::size_t>(h >> (64 - kResolvedBits));
  }
  std::vector<Resolved> resolved_ = std::vector<Resolved>(std::size_t{1} << kResolvedBits);
  const FileSuccessors& source_;
  const std::vector<FileSuccessors::Entry>& entries_;
  const Rules& rules_;
  Metric metric_;
  int last_ = -1;
};

}  // namespace

std::vector<std::pair<Material, bool>> FileSuccessors::sources() const {
  std::vector<std::pair<Material, bool>> out;
  out.reserve(entries_.size());
  for (const Entry& e : entries_) out.emplace_back(e.canonical, e.resident != nullptr);
  return out;
}

int FileSuccessors::find(const Material& canonical) const {
  if (!has_material_number(canonical)) return -1;
  return by_key_[static_cast<std::size_t>(material_number(canonical))];
}

Expected<std::unique_ptr<FileSuccessors>> FileSuccessors::open(const Rules& rules, const std::filesystem::path& dir,
                                                                const std::vector<Material>& materials, Metric metric,
                                                                std::uint64_t cache_bytes_per_reader, int readers,
                                                                const ResidentTables* resident, Env& env) {
  auto fs = std::make_unique<FileSuccessors>();
  fs->rules_ = &rules;
  fs->metric_ = metric;
  fs->cache_bytes_ = cache_bytes_per_reader;
  fs->cache_ = std::make_unique<TableCache>(cache_bytes_per_reader * static_cast<std::uint64_t>(std::max(1, readers)));
  fs->by_key_.assign(kMaterialNumbers, -1);
  // The materials given, then what they convert into (the oracle's search
  // over captures may reach any of them).
  std::set<Material> all(materials.begin(), materials.end());
  for (const Material& m : materials)
    for (const Material& s : successors_closure(m)) all.insert(s);
  auto open_file = [&](const Material& m, Metric which) -> Expected<std::unique_ptr<CachedTable>> {
    return CachedTable::open(table_path(dir, rules, m, which), rules, m, which, *fs->cache_, FileAccess::Pread, env);
  };
  for (const Material& m : all) {
    if (!has_material_number(m)) return Error("material " + m.name() + " has more pieces than a table may hold");
    fs->by_key_[static_cast<std::size_t>(material_number(m))] = static_cast<std::int16_t>(fs->entries_.size());
    const ResidentTables::Codes* codes = resident != nullptr ? resident->find(m) : nullptr;
    Entry e{m, MaterialIndex(m), nullptr, nullptr, codes != nullptr ? *codes : nullptr};
    if (!e.resident) {  // a resident material is never read from its files
      auto r = open_file(m, metric);
      if (!r) return r.error();
      e.file = std::move(*r);
      if (metric != Metric::WDL) {  // draws are read from the WDL file (FORMAT.md 3.5)
        auto w = open_file(m, Metric::WDL);
        if (!w) return w.error();
        e.wdl = std::move(*w);
      }
    }
    fs->entries_.push_back(std::move(e));
  }
  return fs;
}

std::unique_ptr<SuccessorReader> FileSuccessors::reader() const { return file_reader(); }

std::unique_ptr<FileSuccessorReader> FileSuccessors::file_reader() const {
  return std::make_unique<FileReader>(*this, entries_, *rules_, metric_);
}

}  // namespace damka
