// The Tablebase: lazily opened table files, the block cache, and the values
// of positions, moves and principal variations (probe.hpp).
#include "damka/probe.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <system_error>
#include <utility>

#include "damka/cached_table.hpp"
#include "damka/index.hpp"
#include "damka/material_number.hpp"
#include "damka/open_table.hpp"
#include "damka/slots.hpp"
#include "damka/table_file.hpp"
#include "damka/table_paths.hpp"
#include "damka/table_scan.hpp"

namespace damka {

namespace {

// kUnreadable is never stored: open_file returns it after an I/O failure and
// leaves the file kUntried, so the next probe tries again.
// kChanged: the file changed on disk since it was opened; nothing of it is
// served any more, cached blocks included (probes answer IoError).
enum FileState : std::uint8_t { kUntried = 0, kOpen = 1, kMissing = 2, kBroken = 3, kUnreadable = 4, kChanged = 5 };

// The message of this thread's latest Corrupt or IoError answer.
std::string& last_problem() {
  thread_local std::string message;
  return message;
}

// One table file (one metric of one material).
struct TableFile {
  std::atomic<std::uint8_t> state{kUntried};
  std::mutex open_mu;  // held while opening
  std::unique_ptr<CachedTable> table;  // kOpen: read through the Tablebase's cache
};

struct MaterialTables {
  explicit MaterialTables(const Material& m) : material(m), index(m) {}
  Material material;  // canonical
  MaterialIndex index;
  std::array<TableFile, 3> files;  // by Metric
};

constexpr int kMaxDepth = 2 * kNumSquares + 2;  // captures in a row (each removes a piece)

}  // namespace

struct Tablebase::Impl {
  Impl(const Rules& r, std::filesystem::path root_dir, TablebaseOptions opt)
      : rules(r),
        root(std::move(root_dir)),
        family_dir(table_dir(tables_root(root, r, env_or_default(opt.env)), r)),
        options(std::move(opt)),
        tables(std::make_unique<std::atomic<MaterialTables*>[]>(static_cast<std::size_t>(kMaterialNumbers))),
        cache(options.cache_bytes) {}
  ~Impl() {
    for (int i = 0; i < kMaterialNumbers; ++i) delete tables[i].load(std::memory_order_relaxed);
  }

  const Rules& rules;
  std::filesystem::path root, family_dir;
  TablebaseOptions options;
  int max_pieces = 0;
  std::unique_ptr<std::atomic<MaterialTables*>[]> tables;  // by material_number(); created on first use
  std::mutex create_mu;
  mutable TableCache cache;
  mutable std::mutex errors_mu;
  std::vector<std::string> errors;

  // ---- files ---------------------------------------------------------

  MaterialTables& tables_of(const Material& canonical) {
    std::atomic<MaterialTables*>& slot = tables[material_number(canonical)];
    if (MaterialTables* t = slot.load(std::memory_order_acquire)) return *t;
    std::lock_guard lock(create_mu);
    if (MaterialTables* t = slot.load(std::memory_order_acquire)) return *t;
    auto* t = new MaterialTables(canonical);
    slot.store(t, std::memory_order_release);
    return *t;
  }

  void report(const std::string& message) {
    {
      std::lock_guard lock(errors_mu);
      errors.push_back(message);
    }
    last_problem() = message;
    if (options.on_error) options.on_error(message);
  }

  // An I/O failure: not kept in errors(), the file stays to be tried again.
  void report_io(const std::string& message) {
    last_problem() = message + " (will be tried again)";
    if (options.on_error) options.on_error(last_problem());
  }

  // Opens a file not tried yet.  Returns its new state, or kUnreadable after
  // an I/O failure (reported; the state stays kUntried); `reported` is set
  // when this call found it damaged (and reported it).
  std::uint8_t open_file(MaterialTables& t, Metric metric, bool& reported) {
    TableFile& f = t.files[static_cast<int>(metric)];
    std::lock_guard lock(f.open_mu);
    const std::uint8_t st = f.state.load(std::memory_order_acquire);
    if (st != kUntried) return st;
    const auto path = table_path(root, rules, t.material, metric);
    auto fail = [&](const std::string& why) {
      f.state.store(kBroken, std::memory_order_release);
      reported = true;
      report(why + " (table treated as missing)");
      return kBroken;
    };
    auto reader = CachedTable::open(path, rules, t.material, metric, cache,
                                    options.map_files ? FileAccess::Map : FileAccess::Pread, env_or_default(options.env));
    if (!reader) {
      switch (reader.code()) {
        case ErrorCode::NotFound:
          f.state.store(kMissing, std::memory_order_release);
          return kMissing;
        case ErrorCode::Io:
          report_io(reader.message());
          return kUnreadable;
        default:
          return fail(reader.message());
      }
    }
    f.table = std::move(*reader);  // checked: these rules, material and metric (open_table.hpp)
    f.state.store(kOpen, std::memory_order_release);
    return kOpen;
  }

  // One file of t, opened on first use: Ok when it is open.
  ProbeStatus open_status(MaterialTables& t, Metric metric, ProbeMode mode) {
    TableFile& f = t.files[static_cast<int>(metric)];
    std::uint8_t st = f.state.load(std::memory_order_acquire);
    if (st == kUntried) {
      if (mode == ProbeMode::Conditional) return ProbeStatus::NotCached;
      bool reported = false;
      st = open_file(t, metric, reported);
      if (reported) return ProbeStatus::Corrupt;
      if (st == kUnreadable) return ProbeStatus::IoError;
    }
    if (st != kOpen) return st == kChanged ? ProbeStatus::IoError : ProbeStatus::Unknown;
    return ProbeStatus::Ok;
  }

  // The code of `slot` in one file of t.
  ProbeStatus read_code(MaterialTables& t, Metric metric, std::uint64_t slot, ProbeMode mode, std::uint16_t& code) {
    if (ProbeStatus s = open_status(t, metric, mode); s != ProbeStatus::Ok) return s;
    TableFile& f = t.files[static_cast<int>(metric)];
    if (f.table->cached_code(slot, &code)) return ProbeStatus::Ok;
    if (mode == ProbeMode::Conditional) return ProbeStatus::NotCached;
    if (Status s = f.table->read_code(slot, &code); !s.ok()) {
      if (f.table->reader().changed()) {  // nothing of this file is served from now on
        std::uint8_t expected = kOpen;
        if (f.state.compare_exchange_strong(expected, kChanged, std::memory_order_acq_rel))
          report_io(s.message());
        return ProbeStatus::IoError;
      }
      if (s.code() == ErrorCode::Io) {  // may pass: the block is read again next time
        report_io(s.message());
        return ProbeStatus::IoError;
      }
      std::uint8_t expected = kOpen;
      if (f.state.compare_exchange_strong(expected, kBroken, std::memory_order_acq_rel)) {
        report(s.message() + " (table treated as missing)");
        return ProbeStatus::Corrupt;
      }
      return ProbeStatus::Unknown;  // another thread reported it
    }
    return ProbeStatus::Ok;
  }

  // ---- values --------------------------------------------------------

  // The oracle's lookup: a stored position (both sides present, no capture
  // to make).  if_lost: a distance only for a lost position, the WDL alone
  // otherwise (Ask::IfLost, value_oracle.hpp).
  ProbeStatus table_value(const Position& p, Metric metric, ProbeMode mode, Value& v, bool if_lost = false) {
    const Material m = material_of(p);
    if (m.pieces() > kMaxIndexPieces) return ProbeStatus::Unknown;
    MaterialTables& t = tables_of(m.canonical());
    const std::uint64_t slot = locate_slot(t.index, p);
    std::uint16_t wdl = 0;
    if (ProbeStatus s = read_code(t, Metric::WDL, slot, mode, wdl); s != ProbeStatus::Ok) return s;
    if (metric == Metric::WDL || (if_lost && Value::decode(wdl).wdl != Wdl::Loss)) {
      v = Value::decode(wdl).wdl_only();
      return ProbeStatus::Ok;
    }
    // A distance file leaves drawn positions don't care (FORMAT.md 3.5).
    std::uint16_t code = 0;
    if (Value::decode(wdl).wdl != Wdl::Draw)
      if (ProbeStatus s = read_code(t, metric, slot, mode, code); s != ProbeStatus::Ok) return s;
    if (!distance_value(wdl, code, v)) {
      report(table_path(root, rules, t.material, metric).string() + ": slot " + std::to_string(slot) +
             " disagrees with the WDL table on who wins");
      return ProbeStatus::Corrupt;
    }
    return ProbeStatus::Ok;
  }

  // Whether the metric's file stores p's entry for p's side to move, or p is
  // drawn (FORMAT.md 3.5, one side to move: a one-side distance file): `stored`.  A failure
  // (the file or the WDL entry cannot be read) is returned for the lookup
  // of p to report.  p: a stored position of the oracle (no capture).
  ProbeStatus side_stored(const Position& p, Metric metric, ProbeMode mode, bool& stored) {
    stored = true;
    const Material m = material_of(p);
    if (metric == Metric::WDL || m.pieces() > kMaxIndexPieces) return ProbeStatus::Ok;
    MaterialTables& t = tables_of(m.canonical());
    if (ProbeStatus s = open_status(t, metric, mode); s != ProbeStatus::Ok)
      return s == ProbeStatus::Unknown ? ProbeStatus::Ok : s;  // a missing file: the lookup says Unknown
    const TableHeader& h = t.files[static_cast<int>(metric)].table->header();
    if (h.stored_side == StoredSide::Both) return ProbeStatus::Ok;
    const std::uint64_t slot = locate_slot(t.index, p);
    if (h.stores_slot(slot)) return ProbeStatus::Ok;
    std::uint16_t wdl = 0;
    if (ProbeStatus s = read_code(t, Metric::WDL, slot, mode, wdl); s != ProbeStatus::Ok) return s;
    stored = Value::decode(wdl).wdl == Wdl::Draw;  // a draw needs no search
    return ProbeStatus::Ok;
  }

  // Any position whose side not to move has pieces: the oracle over this
  // Tablebase's entries (and a search for the side a one-side file leaves
  // out).
  ProbeStatus value(const Position& p, Metric metric, ProbeMode mode, Value& v) {
    // side_stored()'s failure for q, returned by the lookup of q that follows.
    struct Failed {
      Position q;
      ProbeStatus status = ProbeStatus::Ok;
    } failed;
    auto stores = [&](const Position& q) {
      bool stored = true;
      if (ProbeStatus s = side_stored(q, metric, mode, stored); s != ProbeStatus::Ok) failed = {q, s};
      return stored;
    };
    auto lookup = [&](const Position& q, Ask ask, Value& out) {
      if (failed.status != ProbeStatus::Ok && failed.q == q) return std::exchange(failed.status, ProbeStatus::Ok);
      return table_value(q, ask == Ask::Wdl ? Metric::WDL : metric, mode, out, ask == Ask::IfLost);
    };
    return oracle_value(rules, p, metric, lookup, stores, v);
  }

  // probeable() (probe_status.cpp): bitboards from the C API get no other check.
  static bool valid(const Position& p) { return unprobeable_reason(p) == nullptr; }

  ProbeResult probe(const Position& p, Metric metric, ProbeMode mode) {
    ProbeResult r;
    if (!valid(p)) {
      r.status = ProbeStatus::Invalid;
      return r;
    }
    r.status = value(p, metric, mode, r.value);
    return r;
  }

  ProbeStatus probe_moves(const Position& p, std::vector<MoveValue>& out, ProbeMode mode) {
    out.clear();
    if (!valid(p)) return ProbeStatus::Invalid;
    MoveList moves;
    generate_moves(rules, p, moves);
    out.reserve(moves.size());
    for (const Move& mv : moves) {
      const Position q = apply(p, mv);
      const bool conversion = mv.is_capture() || mv.promotes;
      MoveValue m;
      m.move = mv;
      Value w;
      if (ProbeStatus s = value(q, Metric::DTW, mode, w); s != ProbeStatus::Ok) {
        out.clear();
        return s;
      }
      m.dtw = move_value(w, Metric::DTW, conversion);
      Value c;
      m.dtc_known = value(q, Metric::DTC, mode, c) == ProbeStatus::Ok;
      m.dtc = m.dtc_known ? move_value(c, Metric::DTC, conversion) : Value::draw();
      out.push_back(m);
    }
    std::stable_sort(out.begin(), out.end(), [](const MoveValue& a, const MoveValue& b) {
      if (better_value(a.dtw, b.dtw)) return true;
      if (better_value(b.dtw, a.dtw)) return false;
      if (a.dtc_known && b.dtc_known) return better_value(a.dtc, b.dtc);
      return a.dtc_known && !b.dtc_known;
    });
    return ProbeStatus::Ok;
  }

  ProbeStatus probe_root(const Position& p, std::vector<RootMove>& out, RootRanking& ranking, ProbeMode mode) {
    out.clear();
    ranking = RootRanking::None;
    if (!valid(p)) return ProbeStatus::Invalid;
    MoveList moves;
    generate_moves(rules, p, moves);
    Wdl best = Wdl::Loss;
    for (const Move& mv : moves) {
      Value w;
      if (ProbeStatus s = value(apply(p, mv), Metric::WDL, mode, w); s != ProbeStatus::Ok) {
        out.clear();
        return s;
      }
      RootMove r;
      r.move = mv;
      r.wdl = move_value(w, Metric::WDL, false);
      if (static_cast<int>(r.wdl.wdl) > static_cast<int>(best)) best = r.wdl.wdl;
      out.push_back(r);
    }
    std::erase_if(out, [&](const RootMove& r) { return r.wdl.wdl != best; });
    bool all_dtw = true, all_dtc = true;
    for (RootMove& r : out) {
      const Position q = apply(p, r.move);
      const bool conversion = r.move.is_capture() || r.move.promotes;
      Value v;
      // A DTW or DTC table missing (or unreadable) only leaves that distance unknown.
      if ((r.dtw_known = value(q, Metric::DTW, mode, v) == ProbeStatus::Ok)) r.dtw = move_value(v, Metric::DTW, conversion);
      if ((r.dtc_known = value(q, Metric::DTC, mode, v) == ProbeStatus::Ok)) r.dtc = move_value(v, Metric::DTC, conversion);
      all_dtw = all_dtw && r.dtw_known;
      all_dtc = all_dtc && r.dtc_known;
    }
    if (out.empty() || best == Wdl::Draw) return ProbeStatus::Ok;
    if (all_dtw) {
      ranking = RootRanking::DTW;
      std::stable_sort(out.begin(), out.end(), [](const RootMove& a, const RootMove& b) {
        if (better_value(a.dtw, b.dtw)) return true;
        if (better_value(b.dtw, a.dtw)) return false;
        return a.dtc_known && b.dtc_known && better_value(a.dtc, b.dtc);
      });
    } else if (all_dtc) {
      ranking = RootRanking::DTC;
      std::stable_sort(out.begin(), out.end(),
                       [](const RootMove& a, const RootMove& b) { return better_value(a.dtc, b.dtc); });
    }
    return ProbeStatus::Ok;
  }

  ProbeStatus principal_variation(const Position& p, std::vector<Move>& pv) {
    pv.clear();
    const ProbeResult r = probe(p, Metric::DTW, ProbeMode::Normal);
    if (!r.ok()) return r.status;
    if (r.value.wdl == Wdl::Draw) return ProbeStatus::Ok;
    Position cur = p;
    Value expect = r.value;
    std::vector<MoveValue> moves;
    auto inconsistent = [&](const std::string& what) {
      report("principal variation from " + material_of(p).name() + ": " + what +
             " (the tables disagree with each other)");
      pv.clear();
      return ProbeStatus::Corrupt;
    };
    while (cur.pieces(cur.side_to_move) != 0) {
      if (ProbeStatus s = probe_moves(cur, moves, ProbeMode::Normal); s != ProbeStatus::Ok) {
        pv.clear();
        return s;
      }
      if (moves.empty()) break;
      if (moves.front().dtw != expect)
        return inconsistent("the best move gives " + describe_value(moves.front().dtw, Metric::DTW) +
                            ", the position says " + describe_value(expect, Metric::DTW));
      if (expect.plies == 0) return inconsistent("a move from a position lost in 0 plies");
      pv.push_back(moves.front().move);
      cur = apply(cur, moves.front().move);
      expect = {expect.wdl == Wdl::Win ? Wdl::Loss : Wdl::Win, static_cast<std::uint16_t>(expect.plies - 1)};
    }
    if (expect != Value::loss(0)) return inconsistent("the game ended early");
    return ProbeStatus::Ok;
  }

  ProbeStatus conversion_variation(const Position& p, std::vector<Move>& line) {
    line.clear();
    const ProbeResult r = probe(p, Metric::DTC, ProbeMode::Normal);
    if (!r.ok()) return r.status;
    Position cur = p;
    Value expect = r.value;
    std::vector<MoveValue> moves;
    auto inconsistent = [&](const std::string& what) {
      report("line to the next conversion from " + material_of(p).name() + ": " + what +
             " (the tables disagree with each other)");
      line.clear();
      return ProbeStatus::Corrupt;
    };
    while (expect.wdl != Wdl::Draw && expect.plies > 0) {
      if (ProbeStatus s = probe_moves(cur, moves, ProbeMode::Normal); s != ProbeStatus::Ok) {
        line.clear();
        return s;
      }
      const MoveValue* best = nullptr;
      for (const MoveValue& m : moves) {
        if (!m.dtc_known) {
          line.clear();
          return ProbeStatus::Unknown;
        }
        if (best == nullptr || better_value(m.dtc, best->dtc)) best = &m;
      }
      if (best == nullptr) return inconsistent("no legal move where DTC says " + describe_value(expect, Metric::DTC));
      if (best->dtc != expect)
        return inconsistent("the best move gives " + describe_value(best->dtc, Metric::DTC) + ", the position says " +
                            describe_value(expect, Metric::DTC));
      line.push_back(best->move);
      if (best->move.is_capture() || best->move.promotes) break;  // the conversion: DTC counts from here again
      cur = apply(cur, best->move);
      expect = {expect.wdl == Wdl::Win ? Wdl::Loss : Wdl::Win, static_cast<std::uint16_t>(expect.plies - 1)};
    }
    return ProbeStatus::Ok;
  }

  TableState state_of(const Material& m, Metric metric) {
    if (m.pieces() > kMaxIndexPieces || !m.is_valid()) return TableState::Missing;
    MaterialTables& t = tables_of(m.canonical());
    TableFile& f = t.files[static_cast<int>(metric)];
    std::uint8_t st = f.state.load(std::memory_order_acquire);
    if (st == kUntried) {
      bool reported = false;
      st = open_file(t, metric, reported);
    }
    switch (st) {
      case kOpen: return TableState::Present;
      case kMissing: return TableState::Missing;
      case kUnreadable: return TableState::Unreadable;
      default: return TableState::Broken;
    }
  }

  void missing_of(const Position& p, Metric metric, std::set<Material>& out, int depth) {
    if (p.pieces(p.side_to_move) == 0 || p.pieces(opposite(p.side_to_move)) == 0 || depth > kMaxDepth) return;
    if (has_capture(rules, p)) {
      MoveList moves;
      generate_moves(rules, p, moves);
      for (const Move& mv : moves) missing_of(apply(p, mv), metric, out, depth + 1);
      return;
    }
    const Material c = material_of(p).canonical();
    // A distance metric also needs the WDL table (it says which positions are drawn).
    const bool have = state_of(c, metric) == TableState::Present && state_of(c, Metric::WDL) == TableState::Present;
    if (!have) out.insert(c);
  }
};

Tablebase::Tablebase(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Tablebase::~Tablebase() = default;

Expected<std::unique_ptr<Tablebase>> Tablebase::open(const Rules& rules, const std::filesystem::path& dir,
                                                     TablebaseOptions options) {
  try {
    if (dir.empty()) return Error("the table directory is an empty path");
    Env& env = env_or_default(options.env);
    if (auto info = env.stat(dir); !info || !info->directory) {
      if (!info && info.code() != ErrorCode::NotFound)
        return Error(dir.string() + ": " + info.message() + " (I/O error)", ErrorCode::Io);
      return Error(dir.string() + ": " + (info ? "not a directory" : "no such directory"), ErrorCode::NotFound);
    }
    auto impl = std::make_unique<Impl>(rules, dir, std::move(options));
    // The largest material present, for callers deciding whether to probe:
    // names are only candidates; the largest whose header checks out counts
    // (an empty or foreign file named 16Kv16K.wdl does not).
    std::map<int, std::vector<std::pair<Material, Metric>>, std::greater<>> candidates;
    auto family = env.stat(impl->family_dir);
    if (!family && family.code() != ErrorCode::NotFound)
      return Error(impl->family_dir.string() + ": " + family.message() + " (I/O error)", ErrorCode::Io);
    if (family && family->directory) {
      auto names = env.list_dir(impl->family_dir);
      if (!names)
        return Error(impl->family_dir.string() + ": cannot list: " + names.message() + " (I/O error)", ErrorCode::Io);
      for (const std::string& name : *names) {
        const std::filesystem::path file(name);
        const auto ext = file.extension().string();
        if (ext != ".wdl" && ext != ".dtw" && ext != ".dtc") continue;
        const Metric metric = ext == ".wdl" ? Metric::WDL : ext == ".dtw" ? Metric::DTW : Metric::DTC;
        auto m = Material::parse(file.stem().string());
        if (!m.ok() || !m->is_valid() || !m->is_canonical() || m->white() == 0 || m->black() == 0 ||
            m->pieces() > kMaxIndexPieces)
          continue;
        candidates[m->pieces()].emplace_back(*m, metric);
      }
    }
    for (const auto& [pieces, files] : candidates) {
      for (const auto& [m, metric] : files) {
        auto table = open_table(table_path(dir, rules, m, metric), rules, m, metric, FileAccess::Pread, env);
        if (table.ok()) {
          impl->max_pieces = pieces;
          break;
        }
        // A file that cannot be read (not one that is damaged or foreign) is
        // the I/O error it is, not "no tables" (its message names the file).
        if (table.code() == ErrorCode::Io) return table.error();
      }
      if (impl->max_pieces) break;
    }
    return std::unique_ptr<Tablebase>(new Tablebase(std::move(impl)));
  } catch (const std::exception& e) {
    return Error(dir.string() + ": " + e.what());
  }
}

const Rules& Tablebase::rules() const { return impl_->rules; }
const std::filesystem::path& Tablebase::directory() const { return impl_->family_dir; }

Env& Tablebase::env() const { return env_or_default(impl_->options.env); }
int Tablebase::max_pieces() const { return impl_->max_pieces; }

ProbeResult Tablebase::probe(const Position& p, Metric metric, ProbeMode mode) const {
  return impl_->probe(p, metric, mode);
}

ProbeStatus Tablebase::probe_moves(const Position& p, std::vector<MoveValue>& out, ProbeMode mode) const {
  return impl_->probe_moves(p, out, mode);
}

ProbeStatus Tablebase::probe_root(const Position& p, std::vector<RootMove>& out, RootRanking& ranking,
                                  ProbeMode mode) const {
  return impl_->probe_root(p, out, ranking, mode);
}

ProbeStatus Tablebase::principal_variation(const Position& p, std::vector<Move>& pv) const {
  return impl_->principal_variation(p, pv);
}

ProbeStatus Tablebase::conversion_variation(const Position& p, std::vector<Move>& line) const {
  return impl_->conversion_variation(p, line);
}

TableState Tablebase::table_state(const Material& m, Metric metric) const { return impl_->state_of(m, metric); }

std::vector<Material> Tablebase::missing_tables(const Position& p, Metric metric) const {
  std::set<Material> out;
  if (!Impl::valid(p)) return {};
  impl_->missing_of(p, metric, out, 0);
  if (p.pieces(p.side_to_move) != 0 && p.pieces(opposite(p.side_to_move)) != 0) {
    MoveList moves;
    generate_moves(impl_->rules, p, moves);
    for (const Move& mv : moves) impl_->missing_of(apply(p, mv), metric, out, 1);
  }
  return {out.begin(), out.end()};
}

CacheStats Tablebase::cache_stats() const {
  const auto s = impl_->cache.stats();
  CacheStats c;
  c.hits = s.hits;
  c.misses = s.misses;
  c.blocks = s.blocks;
  c.bytes = s.bytes;
  c.capacity = impl_->cache.capacity();
  c.reads = s.reads;
  return c;
}

const std::string& Tablebase::thread_last_problem() { return last_problem(); }

std::vector<std::string> Tablebase::errors() const {
  std::lock_guard lock(impl_->errors_mu);
  return impl_->errors;
}

}  // namespace damka
