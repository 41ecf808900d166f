// `damka generate`: solve materials in build order and write their files.
#include "damka/generate.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <system_error>

#include "damka/slots.hpp"
#include "damka/table_file.hpp"
#include "damka/table_paths.hpp"

namespace damka {
namespace {

constexpr Metric kMetrics[3] = {Metric::WDL, Metric::DTW, Metric::DTC};

// The materials to build: everything up to max_pieces, or `only` and what it
// needs, in build order.
std::vector<Material> targets(const GenerateOptions& opt) {
  if (!opt.only) return build_order(opt.max_pieces);
  std::set<Material> need;
  std::vector<Material> stack{opt.only->canonical()};
  while (!stack.empty()) {
    const Material x = stack.back();
    stack.pop_back();
    if (need.insert(x).second)
      for (const Material& s : successors(x)) stack.push_back(s);
  }
  std::vector<Material> order;
  for (const Material& m : build_order(opt.only->pieces()))
    if (need.count(m)) order.push_back(m);
  return order;
}

void count_side(const SolvedTable& t, std::uint64_t from, std::uint64_t to, SideCounts& c) {
  for (std::uint64_t i = from; i < to; ++i) {
    const Value v = Value::decode(t.dtw[i]);
    if (v.wdl == Wdl::Win) {
      ++c.wins;
      c.longest_win = std::max<int>(c.longest_win, v.plies);
      c.longest_win_dtc = std::max<int>(c.longest_win_dtc, Value::decode(t.dtc[i]).plies);
    } else if (v.wdl == Wdl::Loss) {
      ++c.losses;
    } else {
      ++c.draws;
    }
  }
}

void fill_counts(const SolvedTable& t, TableReport& r) {
  const std::uint64_t n = MaterialIndex(t.material).size();
  count_side(t, 0, n, r.white_to_move);
  if (t.dtw.size() > n) count_side(t, n, t.dtw.size(), r.black_to_move);
}

Status write_material(const Rules& rules, const std::filesystem::path& dir, const SolvedTable& t, int threads,
                      TableReport& report) {
  std::vector<std::uint16_t> wdl(t.dtw.size());
  for (std::size_t i = 0; i < wdl.size(); ++i) wdl[i] = Value::decode(t.dtw[i]).wdl_only().encode();
  WriteOptions wo;
  wo.threads = threads;
  for (int k = 0; k < 3; ++k) {
    const Metric m = kMetrics[k];
    const auto path = table_path(dir, rules, t.material, m);
    const TableHeader h = default_table_header(rules, t.material, m);
    const std::vector<std::uint16_t>& codes = m == Metric::WDL ? wdl : m == Metric::DTW ? t.dtw : t.dtc;
    if (Status s = write_table(path, h, codes, wo); !s.ok()) return s;
    std::error_code ec;
    report.bytes[k] = std::filesystem::file_size(path, ec);
  }
  return {};
}

}  // namespace

Status check_material_files(const Rules& rules, const std::filesystem::path& dir, const Material& canonical,
                            bool full_checksum) {
  for (Metric m : kMetrics) {
    const auto path = table_path(dir, rules, canonical, m);
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) return Error(path.string() + ": missing");
    auto reader = TableReader::open(path);
    if (!reader) return reader.error();
    const TableHeader& h = (*reader)->header();
    if (Status s = check_table_rules(h, rules, path); !s.ok()) return s;
    if (h.material != canonical || h.metric != m || h.slots != table_slots(canonical))
      return Error(path.string() + ": holds " + h.material.name() + " " + std::string(metric_name(h.metric)) +
                   ", expected " + canonical.name() + " " + std::string(metric_name(m)));
    if (full_checksum)
      if (Status s = (*reader)->verify_file_checksum(); !s.ok()) return s;
  }
  return {};
}

Expected<SolvedTable> load_solved_table(const Rules& rules, const std::filesystem::path& dir,
                                        const Material& canonical) {
  SolvedTable t;
  t.material = canonical;
  for (Metric m : {Metric::DTW, Metric::DTC}) {
    auto reader = TableReader::open(table_path(dir, rules, canonical, m));
    if (!reader) return reader.error();
    if (Status s = check_table_rules((*reader)->header(), rules, (*reader)->path()); !s.ok()) return s.error();
    std::vector<std::uint16_t>& codes = m == Metric::DTW ? t.dtw : t.dtc;
    codes.clear();
    codes.reserve((*reader)->header().slots);
    std::vector<std::uint16_t> block;
    for (std::uint64_t b = 0; b < (*reader)->num_blocks(); ++b) {
      if (Status s = (*reader)->read_block(b, block); !s.ok()) return s.error();
      codes.insert(codes.end(), block.begin(), block.end());
    }
    if (codes.size() != table_slots(canonical))
      return Error((*reader)->path().string() + ": wrong number of positions");
  }
  return t;
}

Expected<std::vector<TableReport>> plan_generation(const Rules& rules, const GenerateOptions& opt) {
  std::vector<TableReport> plan;
  for (const Material& m : targets(opt)) {
    TableReport r;
    r.material = m;
    r.positions = table_slots(m);
    r.action = check_material_files(rules, opt.out, m, false).ok() ? TableReport::Action::Skipped
                                                                      : TableReport::Action::Planned;
    plan.push_back(r);
  }
  return plan;
}

Expected<std::vector<TableReport>> generate(const Rules& rules, const GenerateOptions& opt,
                                            const GenerateCallbacks& cb) {
  std::error_code ec;
  std::filesystem::create_directories(table_dir(opt.out, rules), ec);
  if (ec) return Error(table_dir(opt.out, rules).string() + ": cannot create directory: " + ec.message());
  const std::vector<Material> order = targets(opt);

  // When each table is last needed, so memory holds only what is still used.
  std::map<Material, std::size_t> last_use;
  for (std::size_t i = 0; i < order.size(); ++i) {
    last_use[order[i]] = std::max(last_use[order[i]], i);
    for (const Material& s : successors(order[i])) last_use[s] = std::max(last_use[s], i);
  }

  Solver solver(rules, opt.threads);
  std::vector<TableReport> reports;
  for (std::size_t i = 0; i < order.size(); ++i) {
    const Material m = order[i];
    TableReport r;
    r.material = m;
    r.positions = table_slots(m);
    const auto t0 = std::chrono::steady_clock::now();
    if (check_material_files(rules, opt.out, m, true).ok()) {
      auto loaded = load_solved_table(rules, opt.out, m);
      if (!loaded) return loaded.error();
      solver.add(std::move(*loaded));
      r.action = TableReport::Action::Skipped;
      for (int k = 0; k < 3; ++k) r.bytes[k] = std::filesystem::file_size(table_path(opt.out, rules, m, kMetrics[k]), ec);
    } else {
      solver.set_progress([&](std::uint64_t done, std::uint64_t total) {
        if (cb.progress) cb.progress(Progress{m, i + 1, order.size(), done, total});
      });
      solver.solve_one(m);
      r.action = TableReport::Action::Built;
      if (Status s = write_material(rules, opt.out, *solver.table(m), opt.threads, r); !s.ok()) return s.error();
    }
    fill_counts(*solver.table(m), r);
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (cb.table_done) cb.table_done(r);
    reports.push_back(r);
    // Free the tables no later material needs.
    for (const auto& [mat, last] : last_use)
      if (last == i && solver.table(mat)) solver.drop(mat);
  }
  return reports;
}

}  // namespace damka
