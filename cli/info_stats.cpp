// damka info --stats: wins, draws, losses and the longest wins of every
// material in a tables folder (see info_stats.hpp).
#include "info_stats.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <vector>

#include "damka/material_stats.hpp"
#include "damka/results_journal.hpp"
#include "damka/slots.hpp"
#include "progress.hpp"
#include "damka/notation.hpp"
#include "damka/stats_report.hpp"
#include "damka/table_paths.hpp"

namespace damka::cli {
namespace {

namespace fs = std::filesystem;

// Each sweep thread's buffers: a chunk of 64 Ki slots (positions, codes,
// flags) and one decoded block.
constexpr std::uint64_t kThreadBytes = std::uint64_t{8} << 20;

// What the successors' block cache may hold: the budget less the threads'
// buffers (at least 4 MiB).
std::uint64_t cache_bytes(std::uint64_t budget, int threads) {
  const std::uint64_t buffers = kThreadBytes * static_cast<std::uint64_t>(std::max(1, threads));
  return std::max<std::uint64_t>(std::uint64_t{4} << 20, budget > buffers ? budget - buffers : 0);
}

std::string longest_text(const Rules& rules, const LongestWin& w, const char* metric, bool present) {
  if (!present) return std::string("  ") + metric + ": no file\n";
  if (!w.found) return std::string("  ") + metric + ": no position is won\n";
  std::string s = std::string("  ") + metric + " " + std::to_string(w.plies) + (w.plies == 1 ? " ply (" : " plies (") + std::to_string(w.count) +
                  (w.count == 1 ? " position" : " positions") + "), e.g. " + to_fen(rules, w.position) + "\n";
  if (w.line_status != ProbeStatus::Ok)
    s += "      line: " + std::string(probe_status_name(w.line_status)) + "\n";
  else if (!w.line.empty())
    s += "      " + line_to_string(rules, w.position, w.line) + "\n";
  return s;
}

// captures < 0: not counted for this row (left blank).
void print_counts(const char* label, std::uint64_t positions, const WdlCounts& c, long long captures) {
  std::printf("%-16s %14llu %14llu %14llu %14llu %14s\n", label, static_cast<unsigned long long>(positions),
              static_cast<unsigned long long>(c.wins), static_cast<unsigned long long>(c.draws),
              static_cast<unsigned long long>(c.losses), captures < 0 ? "" : std::to_string(captures).c_str());
}

void print_text(const Rules& rules, const fs::path& folder, const std::vector<MaterialStats>& all) {
  std::printf("%s: %zu materials in %s\n", std::string(rules.name).c_str(), all.size(), folder.string().c_str());
  std::printf("Counts cover %s.\n\n", std::string(kStatsCoverage).c_str());
  std::printf("%-16s %14s %14s %14s %14s %14s\n", "material", "positions", "wins", "draws", "losses", "captures");
  for (const MaterialStats& s : all) {
    print_counts(s.material.name().c_str(), s.positions, s.total, static_cast<long long>(s.captures));
    if (s.sides == 2) {
      print_counts("  white to move", s.by_side[0].positions(), s.by_side[0], -1);
      print_counts("  black to move", s.by_side[1].positions(), s.by_side[1], -1);
    }
  }
  const auto pieces = stats_by_pieces(all);
  for (const PieceCountStats& p : pieces) {
    const std::string label = std::to_string(p.pieces) + " pieces";
    print_counts(label.c_str(), p.positions, p.total, static_cast<long long>(p.captures));
  }
  std::printf("(positions won, drawn and lost by the side to move; captures: positions whose side to move must "
              "capture, valued through their captures)\n");
  std::printf("\nLongest wins (the lowest slot among them; DTW line to the end of the game, DTC line to the next "
              "capture or promotion):\n");
  for (const MaterialStats& s : all) {
    std::printf("%s\n", s.material.name().c_str());
    std::printf("%s", longest_text(rules, s.dtw, "DTW", s.has_dtw).c_str());
    std::printf("%s", longest_text(rules, s.dtc, "DTC", s.has_dtc).c_str());
  }
  for (const PieceCountStats& p : pieces) {
    std::printf("%d pieces (%d materials)\n", p.pieces, p.materials);
    std::printf("%s", longest_text(rules, p.dtw, ("DTW " + (p.dtw.found ? p.dtw.material.name() : "")).c_str(),
                                   p.materials_with_dtw > 0).c_str());
    std::printf("%s", longest_text(rules, p.dtc, ("DTC " + (p.dtc.found ? p.dtc.material.name() : "")).c_str(),
                                   p.materials_with_dtc > 0).c_str());
  }
}

// The metrics whose files `m` has under root (the journal's stamps).
std::vector<Metric> files_of(const Rules& rules, const fs::path& root, const Material& m, Env* env) {
  std::vector<Metric> out;
  for (Metric metric : {Metric::WDL, Metric::DTW, Metric::DTC})
    if (auto info = env_or_default(env).stat(table_path(root, rules, m, metric)); info && info->regular)
      out.push_back(metric);
  return out;
}

}  // namespace

int info_stats(const std::string& dir, int threads, std::uint64_t memory, const Report& report, Env* env,
               const std::string& journal_path) {
  std::optional<ResultsJournal> journal;
  if (!journal_path.empty()) {
    auto j = ResultsJournal::open(journal_path, "stats", env_or_default(env));
    if (!j) return report.fail(j.code() == ErrorCode::Io ? 1 : 2, "--journal: " + j.message());
    journal.emplace(std::move(*j));
  }
  auto scan = scan_table_folder(dir, env_or_default(env));
  if (!scan) return report.fail(scan.code() == ErrorCode::NotFound ? 2 : 1, scan.message());
  if (scan->families.empty()) return report.fail(1, "no tables (*.wdl, *.dtw, *.dtc) in " + dir);
  // Every family's tables first: the progress line covers the whole run.
  struct Family {
    const Rules* rules;
    std::unique_ptr<Tablebase> tb;
    std::vector<Material> materials;
    std::vector<std::optional<std::string>> recorded;  // per material: the journal's record, if its files are unchanged
    std::vector<std::vector<Metric>> files;            // per material: its files (what the journal stamps)
  };
  std::vector<Family> families;
  std::uint64_t total = 0;
  int rc = 0;
  for (const TableFamilyFolder& family : scan->families) {
    // The family's own rules (Filipino's tables are Brazilian's).
    const Rules& rules = rules_of(*parse_variant(family.family));
    for (const std::string& problem : family.problems) report.warn(problem);
    if (!family.problems.empty()) rc = 1;
    TablebaseOptions topt;
    topt.cache_bytes = cache_bytes(memory, threads);
    topt.map_files = false;  // memory stays bounded by the cache, not by the files' sizes
    topt.env = env;
    auto tb = Tablebase::open(rules, scan->root, topt);
    if (!tb) return report.fail(1, "cannot open tables: " + tb.message());
    auto materials = materials_with_tables(**tb);
    if (!materials) return report.fail(1, materials.message());
    std::vector<std::optional<std::string>> recorded(materials->size());
    std::vector<std::vector<Metric>> files(materials->size());
    for (std::size_t i = 0; i < materials->size(); ++i) {
      const Material& m = (*materials)[i];
      if (journal) {
        files[i] = files_of(rules, scan->root, m, env);
        recorded[i] = journal->find(rules, scan->root, m, files[i]);
      }
      if (!recorded[i]) total += table_slots(m);
    }
    families.push_back(Family{&rules, std::move(*tb), std::move(*materials), std::move(recorded), std::move(files)});
  }
  Json variants = Json::array();
  bool first = true;
  std::string journal_error;  // the first failure to write the journal
  ProgressBar bar;
  const auto start = std::chrono::steady_clock::now();
  std::uint64_t done = 0;
  for (Family& family : families) {
    const Rules& rules = *family.rules;
    std::vector<MaterialStats> all;
    Json errors = Json::array();
    StatsOptions sopt;
    sopt.threads = threads;
    for (std::size_t i = 0; i < family.materials.size(); ++i) {
      const Material& m = family.materials[i];
      if (family.recorded[i]) {  // counted by an earlier run: its lines only are probed again
        auto s = stats_from_record(*family.tb, m, *family.recorded[i], sopt);
        if (s) {
          all.push_back(std::move(*s));
          continue;
        }
        total += table_slots(m);  // counted now after all (the record is damaged)
      }
      sopt.progress = [&](std::uint64_t in_material) {
        const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        bar.update_run(double(done + in_material), double(total), elapsed, "positions",
                       "counting " + std::string(rules.name) + " " + m.name());
      };
      auto s = material_stats(*family.tb, m, sopt);
      done += table_slots(m);
      if (!s) {
        bar.finish();
        report.warn(s.message());
        errors.push_back({{"material", m.name()}, {"error", s.message()}});
        rc = 1;
        continue;
      }
      if (journal && journal_error.empty())
        if (Status js = journal->record(rules, scan->root, m, family.files[i], stats_record(*s));
            !js.ok()) {
          journal_error = js.message();
          bar.finish();
          report.warn(journal_error + " (the counts go on; the materials after it are not recorded)");
        }
      all.push_back(std::move(*s));
    }
    bar.finish();
    const std::unique_ptr<Tablebase>& tb = family.tb;
    if (report.json()) {
      Json v = Json::parse(variant_stats_json(rules, all).dump());
      v["folder"] = tb->directory().string();
      v["errors"] = errors;
      variants.push_back(v);
    } else {
      if (!first) std::printf("\n");
      print_text(rules, tb->directory(), all);
    }
    first = false;
    family.tb.reset();  // its block cache: one family's at a time
  }
  if (report.json()) {
    Json out = report.object();
    Json names = Json::array();
    for (const Json& v : variants) names.push_back(v["variant"]);
    out["variant"] = names.size() == 1 ? names[0] : Json(nullptr);
    out["variants"] = names;
    out["counts_cover"] = std::string(kStatsCoverage);
    if (journal) out["journal"] = journal_path;
    out["stats"] = variants;
    if (rc != 0) out["error"] = "some materials could not be counted (see \"errors\")";
    add_peak_memory(out, memory);
    out["exit_code"] = rc;
    std::cout << out.dump(2) << "\n";
  } else {
    std::printf("\n%s\n", peak_memory_words(memory).c_str());
  }
  return rc;
}

}  // namespace damka::cli
