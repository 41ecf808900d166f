// damka info FILE|DIR: the header, value counts and compression of tables;
// damka info --stats DIR: every material's wins, draws, losses and longest
// wins (info_stats.cpp).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "common.hpp"
#include "info_stats.hpp"
#include "damka/table_file.hpp"
#include "damka/table_paths.hpp"
#include "damka/words.hpp"

namespace damka::cli {
namespace {

namespace fs = std::filesystem;

std::string fixed2(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

// What plain info's value counts cover (its "counts_cover" field).
constexpr const char* kStoredOnly =
    "stored positions only: capture positions (the side to move must capture) are derived from their captures "
    "and not stored, so they are counted apart as \"derived\"; `damka info --stats DIR` values every position";

bool is_table_name(const fs::path& p) {
  const auto ext = p.extension().string();
  return ext == ".wdl" || ext == ".dtw" || ext == ".dtc";
}

// "win in 5", "draw", "loss in 0" (plies; WDL tables have no distances).
std::string code_text(std::uint16_t code, Metric metric) { return value_short(Value::decode(code), metric); }

// Codes in reading order: wins by distance, draw, losses by distance.
std::vector<std::uint16_t> code_order(std::size_t n) {
  std::vector<std::uint16_t> order;
  for (std::size_t c = 1; c < n; c += 2) order.push_back(static_cast<std::uint16_t>(c));
  if (n > 0) order.push_back(0);
  for (std::size_t c = 2; c < n; c += 2) order.push_back(static_cast<std::uint16_t>(c));
  return order;
}

std::string hex64(std::uint64_t v) {
  char buf[19];
  std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(v));
  return buf;
}

struct TableInfo {
  std::string path;
  TableHeader h;
  CodeCounts counts;
  Status checksum;
};

Json to_json(const TableInfo& t) {
  const TableHeader& h = t.h;
  const Rules& rules = rules_of(h.variant);
  Json values = Json::array();
  for (std::uint16_t c : code_order(h.max_code + 1u)) {
    const std::uint64_t w = t.counts.white_to_move[c];
    const std::uint64_t b = t.counts.black_to_move.empty() ? 0 : t.counts.black_to_move[c];
    if (w + b == 0) continue;
    const Value v = Value::decode(c);
    Json e = {{"code", c}, {"result", result_word(v.wdl)},
                        {"white_to_move", w}, {"count", w + b}};
    if (h.metric != Metric::WDL) e["plies"] = v.plies;
    if (h.sides() == 2) e["black_to_move"] = b;
    values.push_back(e);
  }
  // Entries of positions whose side to move must capture: derived from the
  // captures by every reader (value_oracle.hpp), not counted in "values".
  Json derived = {{"white_to_move", t.counts.derived_white_to_move},
                  {"count", t.counts.derived_white_to_move + t.counts.derived_black_to_move}};
  if (h.sides() == 2) derived["black_to_move"] = t.counts.derived_black_to_move;
  return {{"path", t.path},
          {"format_version", h.format_version},
          {"variant", std::string(rules.name)},
          {"fingerprint", hex64(h.fingerprint)},
          {"fingerprint_matches_rules", h.fingerprint == rules.fingerprint()},
          {"material", h.material.name()},
          {"material_description", h.material.describe()},
          {"metric", std::string(metric_name(h.metric))},
          {"index_scheme", "slice-major"},
          {"encoding", std::string(encoding_name(h.encoding))},
          {"zstd_level", h.zstd_level},
          {"slots", h.slots},
          {"sides_to_move", h.sides() == 2 ? "white, black" : "white (symmetric material)"},
          {"block_size", h.block_size},
          {"blocks", h.num_blocks},
          {"max_code", h.max_code},
          {"file_size", h.file_size},
          {"positions_per_byte", static_cast<double>(h.slots) / static_cast<double>(h.file_size)},
          {"checksum_ok", t.checksum.ok()},
          {"derived", derived},
          {"values", values}};
}

void print_text(const TableInfo& t, std::ostream& out) {
  const TableHeader& h = t.h;
  const Rules& rules = rules_of(h.variant);
  out << t.path << "\n";
  out << "  material        " << h.material.name() << " (" << h.material.describe() << ")\n";
  out << "  variant         " << rules.name << ", rules fingerprint " << hex64(h.fingerprint)
      << (h.fingerprint == rules.fingerprint() ? "" : " (DOES NOT MATCH this build's rules)") << "\n";
  out << "  metric          " << metric_name(h.metric) << "\n";
  out << "  format          version " << h.format_version << ", index slice-major, encoding "
      << encoding_name(h.encoding) << ", zstd level " << h.zstd_level << "\n";
  out << "  slots           " << h.slots
      << (h.sides() == 2 ? " (white to move, then black to move)" : " (white to move; symmetric material)") << "\n";
  out << "  blocks          " << h.num_blocks << " of " << h.block_size << " positions\n";
  out << "  file size       " << h.file_size << " bytes, "
      << fixed2(static_cast<double>(h.slots) / static_cast<double>(h.file_size)) << " positions per byte\n";
  out << "  checksum        " << (t.checksum.ok() ? "ok" : t.checksum.message()) << "\n";
  out << "  derived         " << t.counts.derived_white_to_move;
  if (h.sides() == 2) out << " / " << t.counts.derived_black_to_move;
  out << " (the side to move must capture: values come from the captures, not counted below)\n";
  out << "  values          " << (h.sides() == 2 ? "white to move / black to move" : "white to move")
      << ", stored positions\n";
  for (std::uint16_t c : code_order(h.max_code + 1u)) {
    const std::uint64_t w = t.counts.white_to_move[c];
    const std::uint64_t b = t.counts.black_to_move.empty() ? 0 : t.counts.black_to_move[c];
    if (w + b == 0) continue;
    out << "    " << code_text(c, h.metric);
    for (std::size_t i = code_text(c, h.metric).size(); i < 14; ++i) out << ' ';
    out << w;
    if (h.sides() == 2) out << " / " << b;
    out << "\n";
  }
}

Expected<TableInfo> inspect(const fs::path& path) {
  auto reader = TableReader::open(path);
  if (!reader) return reader.error();
  TableInfo t;
  t.path = path.string();
  t.h = (*reader)->header();
  // The name must say what the header holds (a renamed or swapped file).
  if (std::string why = table_name_problem(path, t.h.material, t.h.metric); !why.empty())
    return Error(why, ErrorCode::Corrupt);
  // A distance table's draws are read from the WDL table beside it (FORMAT.md 3.5).
  std::unique_ptr<TableReader> wdl;
  if (t.h.metric != Metric::WDL) {
    fs::path wdl_path = path;
    wdl_path.replace_extension(".wdl");
    if (auto w = TableReader::open(wdl_path); w) wdl = std::move(*w);
    else if (t.h.format_version >= 5)
      return Error(path.string() + ": its draws are read from " + wdl_path.string() + ": " + w.message());
  }
  auto counts = count_codes(**reader, wdl.get());
  if (!counts) return counts.error();
  t.counts = std::move(*counts);
  t.checksum = (*reader)->verify_file_checksum();
  return t;
}

}  // namespace

void register_info(CLI::App& app, int& rc) {
  auto* cmd = app.add_subcommand("info", "Show the header, value counts and compression of table files");
  cmd->footer(
      "A directory is searched recursively for *.wdl, *.dtw and *.dtc files.\n"
      "Positions per byte = table slots / file size.\n"
      "Value counts cover stored positions only: capture positions are derived from their captures and not\n"
      "stored. --stats counts every position of every material (capture positions valued through their\n"
      "captures) and finds the longest wins by DTW and DTC, with an example and its line.\n");
  struct Opts {
    std::string path;
    bool json = false, stats = false;
    int threads = 0;
    std::string memory;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("path", o->path, "A table file, or a directory of tables (--stats: a directory)")->required();
  cmd->add_flag("--json", o->json, "Print JSON on stdout");
  cmd->add_flag("--stats", o->stats,
                "Per material and per piece count: wins, draws and losses over every position, the longest wins "
                "by DTW and DTC with an example FEN and its line");
  cmd->add_option("-t,--threads", o->threads, "With --stats: threads (0 = all cores)")
      ->capture_default_str()
      ->check(CLI::Range(0, 256));
  cmd->add_option("--memory", o->memory,
                  "With --stats: memory budget, e.g. 2G or 512M (default: 80% of this machine's memory, as "
                  "generate): the threads' buffers, then a block cache of the tables the capture positions read");
  cmd->callback([o, &rc] {
    Report report("info", o->json);
    report.set("folder", o->path);
    if (o->stats) {
      std::error_code dir_ec;
      if (!fs::is_directory(o->path, dir_ec)) {
        rc = report.fail(2, "--stats takes a tables folder (as given to `damka generate -o`, or a variant "
                            "subfolder), not " + o->path);
        return;
      }
      std::uint64_t memory = 0;
      if (!memory_option(report, o->memory, memory, rc)) return;
      rc = info_stats(o->path, resolve_threads(o->threads), memory, report);
      return;
    }
    std::vector<fs::path> files, strays;
    Json errors = Json::array();
    std::error_code ec;
    if (fs::is_directory(o->path, ec)) {
      for (fs::recursive_directory_iterator it(o->path, ec), end; !ec && it != end; it.increment(ec)) {
        if (temp_table_file_pid(it->path().filename().string()) >= 0) {
          strays.push_back(it->path());
          continue;
        }
        if (!is_table_name(it->path())) continue;
        // An entry that cannot be examined (a symlink loop, a FIFO, ...) is
        // an error of its own; the other tables are still shown.
        std::error_code entry_ec;
        if (!it->is_regular_file(entry_ec) && !entry_ec) {
          if (it->is_directory(entry_ec)) continue;
          entry_ec = std::make_error_code(std::errc::invalid_argument);
        }
        if (entry_ec) {
          const std::string msg = it->path().string() + ": " +
                                  (entry_ec == std::errc::invalid_argument ? std::string("not a regular file")
                                                                           : entry_ec.message());
          std::cerr << "damka info: " << msg << "\n";
          errors.push_back({{"path", it->path().string()}, {"error", msg}});
          rc = 1;
          continue;
        }
        files.push_back(it->path());
      }
      if (ec) {
        rc = report.fail(1, o->path + ": " + ec.message());
        return;
      }
      std::sort(files.begin(), files.end());
      std::sort(strays.begin(), strays.end());
      for (const fs::path& p : strays)
        std::cerr << "damka info: stray temporary file " << p.string()
                  << " (left by a killed run; the next `damka generate` into this folder removes it)\n";
      if (files.empty() && errors.empty()) {
        rc = report.fail(1, "no tables (*.wdl, *.dtw, *.dtc) in " + o->path);
        return;
      }
    } else {
      files.push_back(o->path);
    }
    Json tables = Json::array();
    std::uint64_t slots[3] = {0, 0, 0}, bytes[3] = {0, 0, 0};  // by metric
    int good = 0;
    std::vector<Variant> variants;
    rc = errors.empty() ? 0 : 1;
    for (const fs::path& f : files) {
      const auto info = inspect(f);
      if (!info || !info->checksum.ok()) {
        const std::string msg = info ? info->checksum.message() : info.message();
        if (!o->json) report.warn(msg);
        errors.push_back({{"path", f.string()}, {"error", msg}});
        rc = 1;
        if (!info) continue;
      }
      ++good;
      if (std::find(variants.begin(), variants.end(), info->h.variant) == variants.end())
        variants.push_back(info->h.variant);
      slots[static_cast<int>(info->h.metric)] += info->h.slots;
      bytes[static_cast<int>(info->h.metric)] += info->h.file_size;
      if (o->json) {
        tables.push_back(to_json(*info));
      } else {
        if (good > 1) std::cout << "\n";
        print_text(*info, std::cout);
      }
    }
    Json totals = Json::object();
    std::string summary;
    for (Metric m : {Metric::WDL, Metric::DTW, Metric::DTC}) {
      const int k = static_cast<int>(m);
      if (bytes[k] == 0) continue;
      const double ratio = static_cast<double>(slots[k]) / static_cast<double>(bytes[k]);
      totals[std::string(metric_name(m))] = {{"slots", slots[k]}, {"bytes", bytes[k]}, {"positions_per_byte", ratio}};
      summary += std::string(summary.empty() ? "" : "; ") + std::string(metric_name(m)) + " " + std::to_string(slots[k]) +
                 " positions in " + std::to_string(bytes[k]) + " bytes, " + fixed2(ratio) + " per byte";
    }
    if (o->json) {
      Json stray_list = Json::array();
      for (const fs::path& p : strays) stray_list.push_back(p.string());
      std::sort(variants.begin(), variants.end());
      Json names = Json::array();
      for (Variant v : variants) names.push_back(std::string(rules_of(v).name));
      Json out = report.object();
      out["variant"] = variants.size() == 1 ? names[0] : Json(nullptr);
      out["variants"] = names;
      out["tables"] = tables;
      out["errors"] = errors;
      out["stray_files"] = stray_list;
      out["total"] = {{"tables", good}, {"by_metric", totals}};
      out["counts_cover"] = kStoredOnly;
      if (!errors.empty())
        out["error"] = std::to_string(errors.size()) + " of " + std::to_string(files.size()) +
                       " files refused; first: " + errors[0]["error"].get<std::string>();
      out["exit_code"] = rc;
      std::cout << out.dump(2) << "\n";
    } else {
      if (files.size() > 1) {
        std::cout << "\n" << good << " tables: " << summary;
        if (!errors.empty()) std::cout << "; " << errors.size() << " files refused";
        if (!strays.empty()) std::cout << "; " << strays.size() << " stray temporary files";
        std::cout << "\n";
      }
      if (good > 0) std::cout << "\nValue counts cover " << kStoredOnly << ".\n";
    }
  });
}

}  // namespace damka::cli
