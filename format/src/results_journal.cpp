// results_journal.hpp.
#include "damka/results_journal.hpp"

#include <cstdio>

#include <nlohmann/json.hpp>

#include "damka/safe_file.hpp"
#include "damka/table_paths.hpp"

namespace damka {
namespace {

constexpr std::uint64_t kMostBytes = std::uint64_t{64} << 20;  // every material of 8 pieces, many variants
constexpr int kVersion = 2;  // 2: "reads", the stamps of the tables a result read

std::string format_of(std::string_view kind) { return "damka " + std::string(kind) + " journal"; }

}  // namespace

struct ResultsJournal::Impl {
  std::filesystem::path path;
  Env* env;
  nlohmann::json j;

  // The files' stamps now, and under "reads" a digest of the stamps of
  // every file of every material `m` converts into (successors_closure:
  // what its results read); nothing when one of its own files cannot be
  // stat'ed.
  std::optional<nlohmann::json> stamps(const Rules& rules, const std::filesystem::path& root, const Material& m,
                                       const std::vector<Metric>& files) const {
    nlohmann::json out = nlohmann::json::object();
    for (Metric metric : files) {
      auto info = env->stat(table_path(root, rules, m, metric));
      if (!info || !info->regular) return std::nullopt;
      out[std::string(metric_name(metric))] = {
          {"size", info->size}, {"mtime_ns", info->mtime_ns}, {"inode", info->inode}};
    }
    std::uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a over the stamps' text
    auto mix = [&h](const std::string& text) {
      for (unsigned char c : text) h = (h ^ c) * 0x100000001b3ull;
    };
    for (const Material& s : successors_closure(m))
      for (Metric metric : {Metric::WDL, Metric::DTW, Metric::DTC}) {
        auto info = env->stat(table_path(root, rules, s, metric));
        mix(s.name() + "." + std::string(metric_name(metric)) + "=" +
            (info && info->regular ? std::to_string(info->size) + "/" + std::to_string(info->mtime_ns) + "/" +
                                         std::to_string(info->inode)
                                   : std::string("-")) +
            ";");
      }
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
    out["reads"] = hex;
    return out;
  }

  Status write() {
    if (Status s = replace_file(path, j.dump(1) + "\n", 0644, *env); !s.ok())
      return Error(path.string() + ": cannot write the journal: " + s.message(), ErrorCode::Io);
    return {};
  }
};

ResultsJournal::ResultsJournal(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ResultsJournal::ResultsJournal(ResultsJournal&&) noexcept = default;
ResultsJournal& ResultsJournal::operator=(ResultsJournal&&) noexcept = default;
ResultsJournal::~ResultsJournal() = default;

const std::filesystem::path& ResultsJournal::path() const { return impl_->path; }

Expected<ResultsJournal> ResultsJournal::open(const std::filesystem::path& path, std::string_view kind, Env& env) {
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  impl->env = &env;
  const std::string format = format_of(kind);
  auto text = read_small_file(env, path, kMostBytes);
  if (!text) {
    if (text.code() == ErrorCode::NotFound) {
      impl->j = {{"format", format}, {"version", kVersion}, {"variants", nlohmann::json::object()}};
      return ResultsJournal(std::move(impl));
    }
    if (text.code() == ErrorCode::InvalidArgument)
      return Error(path.string() + ": not a " + format + " (" + text.message() + ")", ErrorCode::InvalidArgument);
    return Error(path.string() + ": cannot read the journal: " + text.message(), text.code());
  }
  impl->j = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  const nlohmann::json& j = impl->j;
  if (!j.is_object() || !j.contains("format") || j["format"] != format || !j.contains("variants") ||
      !j["variants"].is_object())
    return Error(path.string() + ": not a " + format + " (it is left as it is; name another file)",
                 ErrorCode::InvalidArgument);
  if (!j.contains("version") || j["version"] != kVersion)
    return Error(path.string() + ": a " + format + " of another version (" + j["version"].dump() +
                     "); this damka writes version " + std::to_string(kVersion),
                 ErrorCode::InvalidArgument);
  return ResultsJournal(std::move(impl));
}

std::optional<std::string> ResultsJournal::find(const Rules& rules, const std::filesystem::path& root,
                                                const Material& canonical, const std::vector<Metric>& files) const {
  const nlohmann::json& variants = impl_->j["variants"];
  auto v = variants.find(table_family(rules));
  if (v == variants.end() || !v->is_object()) return std::nullopt;
  auto t = v->find(canonical.name());
  if (t == v->end() || !t->is_object() || !t->contains("files")) return std::nullopt;
  const auto now = impl_->stamps(rules, root, canonical, files);
  if (!now || (*t)["files"] != *now) return std::nullopt;
  nlohmann::json result = *t;
  result.erase("files");
  return result.dump();
}

Status ResultsJournal::record(const Rules& rules, const std::filesystem::path& root, const Material& canonical,
                              const std::vector<Metric>& files, std::string_view result) {
  nlohmann::json entry = nlohmann::json::parse(result, nullptr, /*allow_exceptions=*/false);
  if (!entry.is_object()) return Error("a journal result must be a JSON object", ErrorCode::InvalidArgument);
  const auto now = impl_->stamps(rules, root, canonical, files);
  if (!now) return forget(rules, canonical);
  entry["files"] = *now;
  nlohmann::json& v = impl_->j["variants"][table_family(rules)];
  if (!v.is_object()) v = nlohmann::json::object();
  v[canonical.name()] = std::move(entry);
  return impl_->write();
}

Status ResultsJournal::forget(const Rules& rules, const Material& canonical) {
  nlohmann::json& variants = impl_->j["variants"];
  auto v = variants.find(table_family(rules));
  if (v == variants.end() || !v->is_object() || v->erase(canonical.name()) == 0) return {};
  return impl_->write();
}

}  // namespace damka
