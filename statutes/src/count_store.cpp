// Where statute-aware counts are kept: memory, or temporary table files
// read back through a bounded block cache.
#include "count_store.hpp"

#include <stdlib.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include "damka/cached_table.hpp"
#include "damka/table_file.hpp"

namespace damka {

// ------------------------------------------------------------------ memory

class MemoryCountStore::Table final : public StatuteCounts {
 public:
  std::vector<std::uint16_t> codes;
  std::uint64_t slots() const override { return codes.size(); }
  Expected<std::uint16_t> code(std::uint64_t slot) const override {
    if (slot >= codes.size()) return Error("statute counts: slot " + std::to_string(slot) + " out of range");
    return codes[slot];
  }
};

MemoryCountStore::MemoryCountStore() = default;
MemoryCountStore::~MemoryCountStore() = default;

const StatuteCounts* MemoryCountStore::find(const CountKey& key) const {
  auto it = tables_.find(key);
  return it == tables_.end() ? nullptr : it->second.get();
}

const std::vector<std::uint16_t>* MemoryCountStore::codes(const CountKey& key) const {
  auto it = tables_.find(key);
  return it == tables_.end() ? nullptr : &it->second->codes;
}

Expected<std::unique_ptr<CountWriter>> MemoryCountStore::write(const CountKey& key, std::uint64_t slots) {
  struct Writer final : CountWriter {
    MemoryCountStore& store;
    CountKey key;
    std::unique_ptr<Table> table = std::make_unique<Table>();
    std::uint64_t slots;
    Writer(MemoryCountStore& s, CountKey k, std::uint64_t n) : store(s), key(std::move(k)), slots(n) {
      table->codes.reserve(n);
    }
    Status add(std::span<const std::uint16_t> codes) override {
      table->codes.insert(table->codes.end(), codes.begin(), codes.end());
      return {};
    }
    Status finish() override {
      if (table->codes.size() != slots) return Error("statute counts of " + key.second.name() + ": wrong slot count");
      store.tables_[key] = std::move(table);
      return {};
    }
  };
  return std::unique_ptr<CountWriter>(std::make_unique<Writer>(*this, key, slots));
}

// ------------------------------------------------------------------- files

// A count file read through the store's TableCache (cached_table.hpp: a
// hit takes no lock).
class FileCountStore::Table final : public StatuteCounts {
 public:
  explicit Table(std::unique_ptr<CachedTable> file) : file_(std::move(file)) {}
  std::uint64_t slots() const override { return file_->header().slots; }
  Expected<std::uint16_t> code(std::uint64_t slot) const override {
    if (slot >= slots()) return Error("statute counts: slot " + std::to_string(slot) + " out of range");
    std::uint16_t c = 0;
    if (Status s = file_->code(slot, &c); !s.ok()) return s.error();
    return c;
  }

 private:
  std::unique_ptr<CachedTable> file_;
};

class FileCountStore::Writer final : public CountWriter {
 public:
  Writer(FileCountStore& store, CountKey key, std::filesystem::path path, std::unique_ptr<TableBuilder> builder)
      : store_(store), key_(std::move(key)), path_(std::move(path)), builder_(std::move(builder)) {}
  Status add(std::span<const std::uint16_t> codes) override { return builder_->add(codes); }
  Status finish() override {
    if (Status s = builder_->finish(); !s.ok()) return s;
    auto file = CachedTable::open(path_, store_.rules_, key_.second, Metric::DTW, *store_.cache_,
                                  FileAccess::Pread, store_.env_);
    if (!file) return file.error();
    store_.tables_[key_] = std::make_unique<Table>(std::move(*file));
    if (!store_.keep_) return {};
    // Kept: the journal says which file holds these counts.
    auto e = store_.entry(key_.second);
    if (!e) return e.error();
    (*e)["counts"][key_.first] = path_.filename().string();
    return store_.put(key_.second, *e);
  }

 private:
  FileCountStore& store_;
  CountKey key_;
  std::filesystem::path path_;
  std::unique_ptr<TableBuilder> builder_;
};

FileCountStore::FileCountStore(const Rules& rules, std::filesystem::path work_dir, std::uint64_t cache_bytes,
                               Env& env)
    : rules_(rules), env_(env), work_dir_(std::move(work_dir)), cache_(std::make_unique<TableCache>(cache_bytes)) {}

FileCountStore::FileCountStore(const Rules& rules, std::filesystem::path keep_dir, std::filesystem::path tables_root,
                               std::uint64_t cache_bytes, Env& env)
    : rules_(rules), env_(env), dir_(std::move(keep_dir)), tables_root_(std::move(tables_root)), keep_(true),
      cache_(std::make_unique<TableCache>(cache_bytes)) {}

FileCountStore::~FileCountStore() {
  tables_.clear();  // close the files first
  if (dir_.empty() || keep_) return;
  // Its own files (and a writer's leftover temporary files), then the folder.
  if (auto names = env_.list_dir(dir_))
    for (const std::string& name : *names) (void)env_.remove(dir_ / name);
  (void)env_.remove(dir_);
}

const StatuteCounts* FileCountStore::find(const CountKey& key) const {
  auto it = tables_.find(key);
  return it == tables_.end() ? nullptr : it->second.get();
}

Status FileCountStore::open_journal() {
  if (journal_) return {};
  if (Status s = env_.make_dirs(dir_); !s.ok()) return s;
  auto j = ResultsJournal::open(dir_ / "statutes.journal", "statutes", env_);
  if (!j) return j.error();
  journal_ = std::make_unique<ResultsJournal>(std::move(*j));
  return {};
}

Expected<nlohmann::json> FileCountStore::entry(const Material& canonical) {
  if (Status s = open_journal(); !s.ok()) return s.error();
  auto text = journal_->find(rules_, tables_root_, canonical, {Metric::WDL, Metric::DTW, Metric::DTC});
  nlohmann::json e = text ? nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false) : nlohmann::json();
  if (!e.is_object()) e = nlohmann::json::object();
  if (!e.contains("counts") || !e["counts"].is_object()) e["counts"] = nlohmann::json::object();
  if (!e.contains("results") || !e["results"].is_object()) e["results"] = nlohmann::json::object();
  return e;
}

Status FileCountStore::put(const Material& canonical, const nlohmann::json& e) {
  if (Status s = open_journal(); !s.ok()) return s;
  return journal_->record(rules_, tables_root_, canonical, {Metric::WDL, Metric::DTW, Metric::DTC}, e.dump());
}

Expected<const StatuteCounts*> FileCountStore::recall(const CountKey& key) {
  if (!keep_) return nullptr;
  if (const StatuteCounts* c = find(key)) return c;
  auto e = entry(key.second);
  if (!e) return e.error();
  const auto it = (*e)["counts"].find(key.first);
  if (it == (*e)["counts"].end() || !it->is_string()) return nullptr;
  auto file = CachedTable::open(dir_ / it->get<std::string>(), rules_, key.second, Metric::DTW, *cache_,
                                FileAccess::Pread, env_);
  if (!file) {
    if (file.code() == ErrorCode::Io) return file.error();
    return nullptr;  // gone or damaged: computed again
  }
  if ((*file)->header().slots != default_table_header(rules_, key.second, Metric::DTW).slots) return nullptr;
  const StatuteCounts* c = (tables_[key] = std::make_unique<Table>(std::move(*file))).get();
  return c;
}

Expected<std::optional<std::string>> FileCountStore::recall_result(const Material& canonical,
                                                                   const std::string& what) {
  if (!keep_) return std::optional<std::string>();
  auto e = entry(canonical);
  if (!e) return e.error();
  const auto it = (*e)["results"].find(what);
  if (it == (*e)["results"].end() || !it->is_object()) return std::optional<std::string>();
  return std::optional<std::string>(it->dump());
}

Status FileCountStore::keep_result(const Material& canonical, const std::string& what, const std::string& json) {
  if (!keep_) return {};
  auto e = entry(canonical);
  if (!e) return e.error();
  nlohmann::json r = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (!r.is_object()) return Error("a kept result must be a JSON object", ErrorCode::InvalidArgument);
  (*e)["results"][what] = std::move(r);
  return put(canonical, *e);
}

// A stable name for a key's file: the material and a hash (FNV-1a) of the
// book and clause.
static std::string kept_file_name(const CountKey& key) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : key.first) h = (h ^ c) * 0x100000001b3ull;
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return key.second.name() + "." + hex + ".counts";
}

Expected<std::unique_ptr<CountWriter>> FileCountStore::write(const CountKey& key, std::uint64_t slots) {
  if (keep_) {
    if (Status s = open_journal(); !s.ok()) return s.error();
  } else if (dir_.empty()) {
    std::string templ = (work_dir_ / "damka-statutes-XXXXXX").string();
    if (!::mkdtemp(templ.data()))
      return Error("cannot make a temporary folder in " + work_dir_.string() + ": " + std::strerror(errno),
                   ErrorCode::Io);
    dir_ = templ;
  }
  TableHeader h = default_table_header(rules_, key.second, Metric::DTW);
  h.zstd_level = 3;  // temporary: fast to write
  if (h.slots != slots) return Error("statute counts of " + key.second.name() + ": wrong slot count");
  const std::filesystem::path path = dir_ / (keep_ ? kept_file_name(key) : std::to_string(files_++) + ".dtw");
  WriteOptions w;
  w.env = &env_;
  auto builder = TableBuilder::create(path, h, w);
  if (!builder) return builder.error();
  return std::unique_ptr<CountWriter>(std::make_unique<Writer>(*this, key, path, std::move(*builder)));
}

}  // namespace damka
