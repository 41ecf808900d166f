// verify's folder check: see verify_files.hpp.
#include "verify_files.hpp"

#include <algorithm>
#include <array>

#include "damka/open_table.hpp"
#include "damka/index.hpp"
#include "damka/slots.hpp"
#include "damka/solver.hpp"
#include "damka/table_file.hpp"
#include "damka/table_paths.hpp"

namespace damka::verify_detail {
namespace {

namespace fs = std::filesystem;

constexpr Metric kMetrics[3] = {Metric::WDL, Metric::DTW, Metric::DTC};

bool has(const MetricSet& s, Metric m) { return m == Metric::WDL || (m == Metric::DTW ? s.dtw : s.dtc); }

// Why a file name names no table, or empty when it names one.
std::string stray_reason(const std::string& stem, Material& out) {
  auto m = Material::parse(stem);
  if (!m) return "not a material name";
  out = *m;
  if (!m->is_valid() || m->pieces() > kMaxIndexPieces || m->wm > 15 || m->wk > 15 || m->bm > 15 || m->bk > 15)
    return "more pieces than the board or the index holds";
  if (m->white() == 0 || m->black() == 0) return "a side without pieces has no table (it has lost)";
  if (!m->is_canonical()) return "not the canonical name (tables are stored as " + m->canonical().name() + ")";
  return {};
}

// Whether a header matches its file's name; the problem otherwise.
std::string header_problem(const Rules& rules, const fs::path& path, const Material& m, Metric metric, Env& env) {
  auto reader = open_table(path, rules, m, metric, FileAccess::Pread, env);
  return reader ? std::string() : reader.message();
}

}  // namespace

Expected<FolderCheck> check_folder(const Rules& rules, const fs::path& family_dir, Env& env) {
  FolderCheck fc;
  fc.family_dir = family_dir;
  auto names = env.list_dir(family_dir);
  if (!names) return Error(family_dir.string() + ": " + names.message(), ErrorCode::Io);
  std::vector<fs::path> files;
  for (const std::string& name : *names) {
    const auto ext = fs::path(name).extension();
    if (ext == ".wdl" || ext == ".dtw" || ext == ".dtc") files.push_back(family_dir / name);
  }
  std::sort(files.begin(), files.end());

  // Names first: stray ones are listed and never opened.
  std::map<Material, std::array<bool, 3>> present;
  std::vector<VerifyFileProblem> strays;
  for (const fs::path& f : files) {
    Material m;
    if (const std::string why = stray_reason(f.stem().string(), m); !why.empty()) {
      strays.push_back({VerifyFileProblem::Kind::Stray, f, f.string() + ": stray file, names no table (" + why + ")"});
      continue;
    }
    const std::string ext = f.extension().string().substr(1);
    for (int i = 0; i < 3; ++i)
      if (ext == metric_name(kMetrics[i])) present[m][static_cast<std::size_t>(i)] = true;
  }
  int max_pieces = 0;
  for (const auto& [m, _] : present) max_pieces = std::max(max_pieces, m.pieces());
  for (const Material& m : build_order(max_pieces))
    if (present.count(m)) fc.order.push_back(m);
  for (const Material& m : fc.order) fc.metrics[m] = MetricSet{present[m][1], present[m][2], false};

  // Headers against names.
  for (const Material& m : fc.order)
    for (int i = 0; i < 3; ++i)
      if (present[m][static_cast<std::size_t>(i)])
        if (std::string why = header_problem(rules, table_path(family_dir.parent_path(), rules, m, kMetrics[i]), m,
                                             kMetrics[i], env);
            !why.empty())
          fc.problems[{m, kMetrics[i]}] = why;

  // Files that tables present need and that are not there: a table's own
  // WDL file, and what its checks read of every material it converts into.
  std::map<FileKey, std::set<Material>> missing;  // file -> the tables that need it
  for (const Material& m : fc.order) {
    const MetricSet& mine = fc.metrics[m];
    if (!present[m][0]) missing[{m, Metric::WDL}].insert(m);
    for (const Material& s : successors_closure(m))
      for (Metric metric : kMetrics)
        if (has(mine, metric) && !(present.count(s) && present[s][static_cast<std::size_t>(metric)]))
          missing[{s, metric}].insert(m);
  }
  for (const auto& [key, needers] : missing) {
    std::string by;
    int listed = 0;
    for (const Material& n : needers)
      if (n != key.material && listed++ < 3) by += (by.empty() ? "" : ", ") + n.name();
    if (needers.size() > 4) by += ", ...";
    const fs::path path = table_path(family_dir.parent_path(), rules, key.material, key.metric);
    fc.problems[key] = path.string() + ": missing" + (by.empty() ? "" : " (needed to verify " + by + ")");
  }

  for (const auto& [key, why] : fc.problems)
    fc.reported.push_back({missing.count(key) ? VerifyFileProblem::Kind::Missing : VerifyFileProblem::Kind::Bad,
                           table_path(family_dir.parent_path(), rules, key.material, key.metric), why});
  fc.reported.insert(fc.reported.end(), strays.begin(), strays.end());
  return fc;
}

std::string FolderCheck::blocker(const Material& m, bool& own) const {
  own = true;
  const MetricSet mine = metrics.at(m);
  for (Metric metric : kMetrics)  // a file of its own that is bad, or missing (what others read of it)
    if (auto it = problems.find({m, metric}); it != problems.end()) return it->second;
  own = false;
  for (const Material& s : successors_closure(m))
    for (Metric metric : kMetrics)
      if (has(mine, metric))
        if (auto it = problems.find({s, metric}); it != problems.end())
          return "not verifiable: it reads " + it->second;
  return {};
}

void FolderCheck::mark_bad(const Material& m, const std::string& why) {
  for (Metric metric : kMetrics) problems.emplace(FileKey{m, metric}, why);
}

}  // namespace damka::verify_detail
