// Statistics of a material's tables (material_stats.hpp): a sweep of its
// files in slot order, capture positions valued through the Tablebase.
#include "damka/material_stats.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <system_error>

#include <nlohmann/json.hpp>

#include "damka/index.hpp"
#include "damka/material_reader.hpp"
#include "damka/slots.hpp"
#include "damka/table_file.hpp"
#include "damka/value_oracle.hpp"

namespace damka {
namespace {

namespace fs = std::filesystem;

// Slots per unit of work: a multiple of every block size damka writes (WDL
// 1024, DTW/DTC 16384 or 32768), so a chunk reads whole blocks.
constexpr std::uint64_t kChunk = std::uint64_t{1} << 16;

void fill_example(const Tablebase& tb, const MaterialIndex& index, const LongestSlot& b, Metric metric, bool lines,
                  LongestWin& out) {
  out = LongestWin{};
  if (!b.found) return;
  out.found = true;
  out.plies = b.plies;
  out.count = b.count;
  out.material = index.material();
  out.slot = b.slot;
  out.position = position_at(index, b.slot);
  if (!lines) return;
  out.line_status = metric == Metric::DTW ? tb.principal_variation(out.position, out.line)
                                          : tb.conversion_variation(out.position, out.line);
  if (out.line_status != ProbeStatus::Ok) out.line.clear();
}

}  // namespace

Expected<MaterialStats> material_stats(const Tablebase& tb, const Material& m, const StatsOptions& options) {
  if (!m.is_valid() || !m.is_canonical() || m.white() == 0 || m.black() == 0 || m.pieces() > kMaxIndexPieces)
    return Error(m.name() + ": not a canonical material with pieces on both sides (and at most " +
                 std::to_string(kMaxIndexPieces) + " pieces)");
  auto reader = MaterialReader::open(tb, m);
  if (!reader) return reader.error();
  const MaterialIndex& index = reader->index();
  const std::uint64_t slots = reader->slots();
  const std::uint64_t per_side = index.size();  // slots with White to move
  const bool dtw = reader->has(Metric::DTW), dtc = reader->has(Metric::DTC);
  const MaterialReader::Reads what{.dtw = dtw, .dtc = dtc};

  MaterialStats out;
  out.material = m;
  out.sides = m.is_symmetric() ? 1 : 2;
  out.positions = slots;
  out.has_dtw = dtw;
  out.has_dtc = dtc;

  const auto chunks = static_cast<std::int64_t>((slots + kChunk - 1) / kChunk);
  const int threads = options.threads > 0 ? options.threads : omp_get_max_threads();
  std::atomic<bool> failed{false};
  std::uint64_t done = 0;  // slots, for options.progress
  std::int64_t error_chunk = std::numeric_limits<std::int64_t>::max();
  Error error;
  StatsTally sum;
#pragma omp parallel num_threads(threads)
  {
    StatsTally mine;
    MaterialReader::Range range;
    auto fail = [&](std::int64_t c, Error e) {
#pragma omp critical(damka_material_stats)
      {
        if (c < error_chunk) {  // the lowest chunk's error among those met
          error_chunk = c;
          error = std::move(e);
        }
      }
      failed.store(true, std::memory_order_relaxed);
    };
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t c = 0; c < chunks; ++c) {
      if (failed.load(std::memory_order_relaxed)) continue;
      const std::uint64_t first = static_cast<std::uint64_t>(c) * kChunk;
      const std::uint64_t n = std::min(kChunk, slots - first);
      if (Status s = reader->read(first, n, what, range); !s.ok()) {
        fail(c, s.error());
        continue;
      }
      for (std::uint64_t j = 0; j < n; ++j) {
        const std::uint64_t slot = first + j;
        // One search of a capture position gives WDL and DTW, and its DTC
        // follows from its WDL (capture_dtc).
        auto w = reader->value(range, j, dtw ? Metric::DTW : Metric::WDL);
        if (!w) {
          fail(c, w.error());
          break;
        }
        const Value d = *w;  // DTW (when there)
        Value v;             // DTC (when there and not a draw)
        if (dtc && w->wdl != Wdl::Draw && range.derived[j]) {
          v = capture_dtc(w->wdl);  // no second search
        } else if (dtc && w->wdl != Wdl::Draw) {
          auto x = reader->value(range, j, Metric::DTC);
          if (!x) {
            fail(c, x.error());
            break;
          }
          v = *x;
        }
        mine.see(slot, slot < per_side ? 0 : 1, range.derived[j] != 0, d, v, dtw, dtc);
      }
      if (options.progress) {
#pragma omp critical(damka_material_stats_progress)
        options.progress(done += n);
      }
    }
#pragma omp critical(damka_material_stats)
    sum.merge(mine);
  }
  if (failed) return error;
  out.by_side[0] = sum.by_side[0];
  out.by_side[1] = sum.by_side[1];
  out.total = sum.by_side[0];
  out.total += sum.by_side[1];
  out.captures = sum.captures;
  fill_example(tb, index, sum.dtw, Metric::DTW, options.lines, out.dtw);
  fill_example(tb, index, sum.dtc, Metric::DTC, options.lines, out.dtc);
  return out;
}

std::string stats_record(const MaterialStats& s) {
  StatsRecord r{s.has_dtw, s.has_dtc, {}};
  r.tally.by_side[0] = s.by_side[0];
  r.tally.by_side[1] = s.by_side[1];
  r.tally.captures = s.captures;
  for (Metric metric : {Metric::DTW, Metric::DTC}) {
    const LongestWin& w = metric == Metric::DTW ? s.dtw : s.dtc;
    if (w.found) (metric == Metric::DTW ? r.tally.dtw : r.tally.dtc) = {true, w.plies, w.slot, w.count};
  }
  return stats_tally_record(s.material, r);
}

Expected<MaterialStats> stats_from_record(const Tablebase& tb, const Material& m, std::string_view record,
                                          const StatsOptions& options) {
  if (!m.is_valid() || !m.is_canonical() || m.white() == 0 || m.black() == 0 || m.pieces() > kMaxIndexPieces)
    return Error(m.name() + ": not a statistics record of this material", ErrorCode::InvalidArgument);
  auto r = parse_stats_tally_record(m, record);
  if (!r) return r.error();
  const MaterialIndex index(m);
  MaterialStats out;
  out.material = m;
  out.sides = m.is_symmetric() ? 1 : 2;
  out.positions = table_slots(m);
  out.by_side[0] = r->tally.by_side[0];
  out.by_side[1] = r->tally.by_side[1];
  out.total = out.by_side[0];
  out.total += out.by_side[1];
  out.captures = r->tally.captures;
  out.has_dtw = r->has_dtw;
  out.has_dtc = r->has_dtc;
  fill_example(tb, index, r->tally.dtw, Metric::DTW, options.lines, out.dtw);
  fill_example(tb, index, r->tally.dtc, Metric::DTC, options.lines, out.dtc);
  return out;
}

Expected<std::vector<Material>> materials_with_tables(const Tablebase& tb) {
  std::vector<Material> out;
  Env& env = tb.env();
  auto folder = env.stat(tb.directory());
  if (!folder && folder.code() != ErrorCode::NotFound)
    return Error(tb.directory().string() + ": " + folder.message() + " (I/O error)", ErrorCode::Io);
  if (!folder || !folder->directory) return out;  // no tables of this family
  auto names = env.list_dir(tb.directory());
  if (!names) return Error(tb.directory().string() + ": cannot list: " + names.message(), ErrorCode::Io);
  for (const std::string& name : *names) {
    const fs::path file(name);
    if (file.extension() != ".wdl") continue;
    const std::string stem = file.stem().string();
    auto m = Material::parse(stem);
    if (!m || !m->is_valid() || !m->is_canonical() || m->name() != stem || m->white() == 0 || m->black() == 0 ||
        m->pieces() > kMaxIndexPieces)
      continue;
    out.push_back(*m);
  }
  std::sort(out.begin(), out.end(), [](const Material& a, const Material& b) {
    return a.pieces() != b.pieces() ? a.pieces() < b.pieces() : a < b;
  });
  return out;
}

namespace {
// Whether a is the better example of a longest win than b (longer, then the
// smaller material, then the lower slot).
bool longer(const LongestWin& a, const LongestWin& b) {
  if (!b.found) return a.found;
  if (!a.found) return false;
  if (a.plies != b.plies) return a.plies > b.plies;
  if (a.material != b.material) return a.material < b.material;
  return a.slot < b.slot;
}

void merge_longest(LongestWin& into, const LongestWin& x) {
  if (!x.found) return;
  if (into.found && x.plies == into.plies) {
    const std::uint64_t count = into.count + x.count;
    if (longer(x, into)) into = x;
    into.count = count;
  } else if (longer(x, into)) {
    into = x;
  }
}
}  // namespace

std::vector<PieceCountStats> stats_by_pieces(std::span<const MaterialStats> materials) {
  std::map<int, PieceCountStats> by;
  for (const MaterialStats& s : materials) {
    PieceCountStats& p = by[s.material.pieces()];
    p.pieces = s.material.pieces();
    ++p.materials;
    p.materials_with_dtw += s.has_dtw ? 1 : 0;
    p.materials_with_dtc += s.has_dtc ? 1 : 0;
    p.positions += s.positions;
    p.total += s.total;
    p.captures += s.captures;
    merge_longest(p.dtw, s.dtw);
    merge_longest(p.dtc, s.dtc);
  }
  std::vector<PieceCountStats> out;
  for (auto& [n, p] : by) out.push_back(std::move(p));
  return out;
}

}  // namespace damka
