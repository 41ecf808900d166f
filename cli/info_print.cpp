// damka info, the output: each table as text or JSON, then the totals
// (info_command.hpp).  Values are written with words.hpp's words.
#include <algorithm>
#include <cstdio>
#include <iostream>

#include "damka/words.hpp"
#include "info_command.hpp"

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

Json table_json(const TableInfo& t) {
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
  // The won and lost positions of the side a one-side file leaves out
  // (FORMAT.md 3.5): searched by every reader, not counted in "values".
  Json unstored = {{"white_to_move", t.counts.unstored_white_to_move},
                   {"count", t.counts.unstored_white_to_move + t.counts.unstored_black_to_move}};
  if (h.sides() == 2) unstored["black_to_move"] = t.counts.unstored_black_to_move;
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
          {"stored_side", std::string(stored_side_name(h.stored_side))},
          {"block_size", h.block_size},
          {"blocks", h.num_blocks},
          {"max_code", h.max_code},
          {"file_size", h.file_size},
          {"positions_per_byte", static_cast<double>(h.slots) / static_cast<double>(h.file_size)},
          {"checksum_ok", t.checksum.ok()},
          {"derived", derived},
          {"unstored", unstored},
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
  if (h.stored_side != StoredSide::Both)
    out << "  stored side     " << stored_side_name(h.stored_side)
        << " to move only (the other side's won and lost positions are found by a search: "
        << t.counts.unstored_white_to_move + t.counts.unstored_black_to_move << " of them, not counted below)\n";
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

}  // namespace

void InfoPrinter::table(const fs::path& file, const Expected<TableInfo>& info) {
  if (!info || !info->checksum.ok()) {
    const std::string msg = info ? info->checksum.message() : info.message();
    if (!o_.json) report_.warn(msg);
    errors_.push_back({{"path", file.string()}, {"error", msg}});
    ++refused_;
    if (!info) return;
  }
  ++good_;
  if (std::find(variants_.begin(), variants_.end(), info->h.variant) == variants_.end())
    variants_.push_back(info->h.variant);
  slots_[static_cast<int>(info->h.metric)] += info->h.slots;
  bytes_[static_cast<int>(info->h.metric)] += info->h.file_size;
  if (o_.json) {
    tables_.push_back(table_json(*info));
  } else {
    if (good_ > 1) std::cout << "\n";
    print_text(*info, std::cout);
  }
}

void InfoPrinter::summary(const TableFiles& found, int rc) const {
  // The entries the walk could not examine, then the files refused.
  Json errors = found.errors;
  for (const auto& e : errors_) errors.push_back(e);
  Json totals = Json::object();
  std::string summary;
  for (Metric m : {Metric::WDL, Metric::DTW, Metric::DTC}) {
    const int k = static_cast<int>(m);
    if (bytes_[k] == 0) continue;
    const double ratio = static_cast<double>(slots_[k]) / static_cast<double>(bytes_[k]);
    totals[std::string(metric_name(m))] = {{"slots", slots_[k]}, {"bytes", bytes_[k]}, {"positions_per_byte", ratio}};
    summary += std::string(summary.empty() ? "" : "; ") + std::string(metric_name(m)) + " " +
               std::to_string(slots_[k]) + " positions in " + std::to_string(bytes_[k]) + " bytes, " + fixed2(ratio) +
               " per byte";
  }
  if (o_.json) {
    Json stray_list = Json::array();
    for (const fs::path& p : found.strays) stray_list.push_back(p.string());
    std::vector<Variant> variants = variants_;
    std::sort(variants.begin(), variants.end());
    Json names = Json::array();
    for (Variant v : variants) names.push_back(std::string(rules_of(v).name));
    Json out = report_.object();
    out["variant"] = variants.size() == 1 ? names[0] : Json(nullptr);
    out["variants"] = names;
    out["tables"] = tables_;
    out["errors"] = errors;
    out["stray_files"] = stray_list;
    out["total"] = {{"tables", good_}, {"by_metric", totals}};
    out["counts_cover"] = kStoredOnly;
    if (!errors.empty())
      out["error"] = std::to_string(errors.size()) + " of " + std::to_string(found.files.size()) +
                     " files refused; first: " + errors[0]["error"].get<std::string>();
    out["exit_code"] = rc;
    std::cout << out.dump(2) << "\n";
    return;
  }
  if (found.files.size() > 1) {
    std::cout << "\n" << good_ << " tables: " << summary;
    if (!errors.empty()) std::cout << "; " << errors.size() << " files refused";
    if (!found.strays.empty()) std::cout << "; " << found.strays.size() << " temporary files (named above)";
    std::cout << "\n";
  }
  if (good_ > 0) std::cout << "\nValue counts cover " << kStoredOnly << ".\n";
}

}  // namespace damka::cli
