// verify_journal.hpp.
#include "verify_journal.hpp"

#include <string>

#include "damka/safe_file.hpp"
#include "damka/table_paths.hpp"
#include "damka/value.hpp"

namespace damka::verify_detail {
namespace {

constexpr const char* kFormat = "damka verify journal";
constexpr std::uint64_t kMostBytes = std::uint64_t{64} << 20;  // every material of 8 pieces, many variants

// The metrics whose files a material with `files` has.
std::vector<Metric> metrics_of(const MetricSet& files) {
  std::vector<Metric> out{Metric::WDL};
  if (files.dtw) out.push_back(Metric::DTW);
  if (files.dtc) out.push_back(Metric::DTC);
  return out;
}

}  // namespace

Expected<VerifyJournal> VerifyJournal::open(const std::filesystem::path& path, Env& env) {
  auto text = read_small_file(env, path, kMostBytes);
  if (!text) {
    if (text.code() == ErrorCode::NotFound)
      return VerifyJournal(path, env, {{"format", kFormat}, {"version", 1}, {"variants", nlohmann::json::object()}});
    if (text.code() == ErrorCode::InvalidArgument)
      return Error(path.string() + ": not a damka verify journal (" + text.message() + ")", ErrorCode::InvalidArgument);
    return Error(path.string() + ": cannot read the verify journal: " + text.message(), text.code());
  }
  nlohmann::json j = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || j.value("format", "") != kFormat || !j.contains("variants") || !j["variants"].is_object())
    return Error(path.string() + ": not a damka verify journal (it is left as it is; name another file)",
                 ErrorCode::InvalidArgument);
  if (j.value("version", 0) != 1)
    return Error(path.string() + ": a verify journal of another version (" + j["version"].dump() +
                     "); this damka writes version 1",
                 ErrorCode::InvalidArgument);
  return VerifyJournal(path, env, std::move(j));
}

std::optional<nlohmann::json> VerifyJournal::stamps(const Rules& rules, const std::filesystem::path& root,
                                                    const Material& canonical, const MetricSet& files) const {
  nlohmann::json out = nlohmann::json::object();
  for (Metric metric : metrics_of(files)) {
    auto info = env_->stat(table_path(root, rules, canonical, metric));
    if (!info || !info->regular) return std::nullopt;
    out[std::string(metric_name(metric))] = {
        {"size", info->size}, {"mtime_ns", info->mtime_ns}, {"inode", info->inode}};
  }
  return out;
}

std::optional<double> VerifyJournal::good(const Rules& rules, const std::filesystem::path& root,
                                          const Material& canonical, const MetricSet& files) const {
  const nlohmann::json& variants = j_["variants"];
  auto v = variants.find(table_family(rules));
  if (v == variants.end() || !v->is_object()) return std::nullopt;
  auto t = v->find(canonical.name());
  if (t == v->end() || !t->is_object() || !t->contains("files")) return std::nullopt;
  const auto now = stamps(rules, root, canonical, files);
  if (!now || (*t)["files"] != *now) return std::nullopt;
  const auto s = t->find("seconds");
  return s != t->end() && s->is_number() ? s->get<double>() : 0.0;
}

Status VerifyJournal::record(const Rules& rules, const std::filesystem::path& root, const Material& canonical,
                             const MetricSet& files, bool good, std::uint64_t positions, double seconds) {
  nlohmann::json& v = j_["variants"][table_family(rules)];
  if (!v.is_object()) v = nlohmann::json::object();
  const auto now = good ? stamps(rules, root, canonical, files) : std::nullopt;
  if (now)
    v[canonical.name()] = {{"positions", positions}, {"seconds", seconds}, {"files", *now}};
  else if (!v.erase(canonical.name()))
    return Status();  // nothing recorded, nothing to forget
  if (Status s = replace_file(path_, j_.dump(1) + "\n", 0644, *env_); !s.ok())
    return Status(Error(path_.string() + ": cannot write the verify journal: " + s.message(), ErrorCode::Io));
  return Status();
}

}  // namespace damka::verify_detail
