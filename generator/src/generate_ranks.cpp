// generate() on several ranks (generate.hpp, rank_plan.hpp): rank 0 holds
// the output folder's lock; every rank follows the same plan, waits for the
// tables its materials convert into (notices from the ranks that wrote them)
// and builds its jobs, alone or split with every rank (LevelSplit).
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <algorithm>
#include <sstream>
#include <type_traits>

#include "damka/output_lock.hpp"
#include "damka/rank_plan.hpp"
#include "damka/safe_file.hpp"
#include "damka/slots.hpp"
#include "damka/table_paths.hpp"
#include "generate_detail.hpp"

namespace damka {

std::filesystem::path rank_note_path(const Rules& rules, const std::filesystem::path& dir, int rank) {
  return dir / (".damka-generate-" + table_family(rules) + ".rank" + std::to_string(rank));
}

namespace generate_detail {
namespace {

// Splits a material's levels among every rank; rank 0 writes the files.
class ClusterSplit : public LevelSplit {
 public:
  explicit ClusterSplit(Cluster& c) : c_(c) {}
  int parts() const override { return c_.size(); }
  int part() const override { return c_.rank(); }
  bool writer() const override { return c_.rank() == 0; }
  Status agree(bool failed) override {
    const int n = c_.count(failed);
    if (n > 0 && !failed)
      return Error(std::to_string(n) + " other rank" + (n > 1 ? "s" : "") + " failed on this material (see " +
                   (n > 1 ? "their messages" : "its message") + ")");
    return {};
  }
  Status merge(std::span<std::uint16_t> codes) override {
    c_.and_reduce(codes);
    return {};
  }
  Status exchange(std::vector<std::vector<std::uint64_t>>& out, std::vector<std::uint64_t>& in, bool failed) override {
    if (Status s = agree(failed); !s.ok() || failed) return s;
    in = c_.exchange(out);
    return {};
  }
  int count(bool flag) override { return c_.count(flag); }

 private:
  Cluster& c_;
};

std::string utc_now() {
  char when[64] = "?";
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  if (::gmtime_r(&now, &tm) != nullptr) std::strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &tm);
  return when;
}

// The note of what this rank does, replaced whole (a fresh temporary file,
// then rename: safe_file.hpp).  A note that cannot be written is caught by
// read_note() where it matters (rank 0's ready note).
void write_note(const std::filesystem::path& path, const std::string& text, Env& env) {
  [[maybe_unused]] const Status s = replace_file(path, text + "\n", 0644, env);
}

// The first line of a note ("" when it cannot be read, or is not a note:
// larger than 64 KiB).
std::string read_note(const std::filesystem::path& path, Env& env) {
  auto text = read_small_file(env, path, 1 << 16);
  if (!text) return {};
  return text->substr(0, text->find('\n'));
}

}  // namespace

// Notes left by ranks of a job that did not finish: each told, then removed
// (regular files only: a link or folder of that name is left alone).
void report_stale_notes(const Rules& rules, const std::filesystem::path& dir,
                        const std::function<void(const std::string&)>& notice, Env& env) {
  const std::string prefix = rank_note_path(rules, dir, 0).filename().string();
  const std::string stem = prefix.substr(0, prefix.size() - 1);  // without the rank number
  std::vector<std::filesystem::path> found;
  if (auto names = env.list_dir(dir))
    for (const std::string& name : *names)
      if (name.rfind(stem, 0) == 0 && is_plain_file(dir / name)) found.push_back(dir / name);
  std::sort(found.begin(), found.end());
  for (const auto& p : found) {
    const std::string name = p.filename().string();
    const bool temporary = name.find(".tmp.") != std::string::npos || p.extension() == ".new";
    const std::string text = temporary ? std::string() : read_note(p, env);
    if (notice && !text.empty()) notice("a previous run did not finish; when it stopped, " + text + " (resuming)");
    [[maybe_unused]] const Status removed = env.remove(p);
  }
}

namespace {

std::string who(const Cluster& c) {
  return "rank " + std::to_string(c.rank()) + " of " + std::to_string(c.size()) + " (pid " +
         std::to_string(::getpid()) + " on " + c.host() + ")";
}

static_assert(std::is_trivially_copyable_v<TableReport>);

std::string pack(const std::vector<TableReport>& reports) {
  std::string bytes(reports.size() * sizeof(TableReport), '\0');
  if (!reports.empty()) std::memcpy(bytes.data(), reports.data(), bytes.size());
  return bytes;
}

std::vector<TableReport> unpack(const std::string& bytes) {
  std::vector<TableReport> reports(bytes.size() / sizeof(TableReport));
  if (!reports.empty()) std::memcpy(reports.data(), bytes.data(), reports.size() * sizeof(TableReport));
  return reports;
}

}  // namespace

Expected<std::vector<TableReport>> generate_on_ranks(const Rules& rules, const GenerateOptions& opt,
                                                     const GenerateCallbacks& cb, Cluster& c) {
  const auto start = std::chrono::steady_clock::now();
  const int me = c.rank();
  Env& env = env_or_default(opt.env);
  const std::filesystem::path my_note = rank_note_path(rules, opt.out, me);

  // Rank 0 takes the lock (one job per folder and family), removes what a
  // killed run left, and tells the others it is ready in its note; each
  // rank then checks that it sees that note: the folder must be shared.
  std::optional<OutputLock> lock;
  std::string ready;
  if (me == 0) {
    auto l = lock_output(rules, opt.out, cb.notice, env);
    if (!l) {
      ready = "!" + l.message();
    } else {
      lock.emplace(std::move(*l));
      report_stale_notes(rules, opt.out, cb.notice, env);
      ready = who(c) + " holds the lock since " + utc_now();
      write_note(my_note, ready, env);
      if (read_note(my_note, env) != ready) ready = "!" + my_note.string() + ": cannot write this rank's note";
    }
  }
  c.broadcast(ready, 0);
  if (!ready.empty() && ready[0] == '!')
    return Error(me == 0 ? ready.substr(1) : "rank 0 could not start: " + ready.substr(1));
  const bool sees = me == 0 || read_note(rank_note_path(rules, opt.out, 0), env) == ready;
  if (const int blind = c.count(!sees); blind > 0) {
    if (!sees)
      return Error(who(c) + " does not see " + opt.out.string() +
                   " as rank 0 does: every rank must share the output folder (a network file system "
                   "mounted at the same path)");
    return Error(std::to_string(blind) + " rank" + (blind > 1 ? "s do" : " does") + " not see " +
                 opt.out.string() + " (see " + (blind > 1 ? "their messages" : "its message") + ")");
  }

  // The same plan on every rank: which files are present is decided once,
  // by rank 0.
  const std::vector<Material> order = targets(opt);
  std::string present_bytes(order.size(), '0');
  if (me == 0)
    for (std::size_t i = 0; i < order.size(); ++i)
      if (check_material_files(rules, opt.out, order[i], true, opt.metrics, env).ok()) present_bytes[i] = '1';
  c.broadcast(present_bytes, 0);
  std::vector<bool> done(order.size()), build(order.size());
  for (std::size_t i = 0; i < order.size(); ++i) build[i] = !(done[i] = present_bytes[i] == '1');
  // As on one process: a budget too small for a material is said before
  // anything is built (every rank decides the same, so none waits).
  if (Status s = memory_refusal(over_budget(order, build, opt), opt); !s.ok()) return s.error();
  const RankPlan plan = plan_ranks(order, build, c.size(), opt.split_above);

  if (me == 0 && cb.table_done)
    for (std::size_t i = 0; i < order.size(); ++i)
      if (!build[i]) {
        TableReport r;
        r.material = order[i];
        r.positions = table_slots(order[i]);
        fill_present(rules, opt, r);
        cb.table_done(r);
      }

  std::uint64_t mine_total = 0, mine_done = 0;
  for (const RankJob& job : plan.jobs)
    if (job.rank == me || job.rank == RankJob::kAllRanks) mine_total += table_slots(order[job.index]);

  ClusterSplit split(c);
  std::vector<TableReport> mine;
  int jobs_started = 0;
  for (const RankJob& job : plan.jobs) {
    if (job.rank != me && job.rank != RankJob::kAllRanks) continue;
    const std::size_t i = job.index;
    const Material m = order[i];
    const bool split_job = job.rank == RankJob::kAllRanks;
    for (std::size_t d : needed_indexes(order, i))
      while (!done[d]) {
        const int n = c.next_notice();
        if (n >= 0 && static_cast<std::size_t>(n) < done.size()) done[static_cast<std::size_t>(n)] = true;
      }
    write_note(my_note,
               who(c) + " was building " + m.name() + (split_job ? " (split among every rank)" : "") + " since " + utc_now(),
               env);
    const int job_number = ++jobs_started;
    TableReport r;
    r.material = m;
    r.positions = table_slots(m);
    r.rank = job.rank;
    const auto t0 = std::chrono::steady_clock::now();
    const auto progress = [&](std::uint64_t d, std::uint64_t total) {
      if (opt.job_progress_hook) opt.job_progress_hook(me, job_number);
      if (cb.progress)
        cb.progress(table_progress(m, i + 1, order.size(), d, total, mine_done + d, mine_total,
                                   std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()));
    };
    if (Status s = build_table(rules, opt, split_job ? &split : nullptr, progress, r); !s.ok()) {
      const std::string why = s.message();
      return Error(who(c) + ": " + (why.rfind(m.name(), 0) == 0 ? why : m.name() + ": " + why), s.code());
    }
    mine_done += r.positions;
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!split_job || me == 0) {  // the files are complete: tell the others
      done[i] = true;
      c.notify_all(static_cast<int>(i));
      if (cb.table_done) cb.table_done(r);
      mine.push_back(r);
    }
    write_note(my_note, who(c) + " had finished " + m.name() + " and was waiting (" + utc_now() + ")", env);
  }

  // Every report to rank 0, in build order.
  const std::vector<std::string> all = c.gather(pack(mine), 0);
  [[maybe_unused]] const Status removed = env.remove(my_note);
  if (me != 0) return mine;
  std::vector<TableReport> reports;
  for (std::size_t i = 0; i < order.size(); ++i) {
    TableReport r;
    r.material = order[i];
    r.positions = table_slots(order[i]);
    if (!build[i]) {
      fill_present(rules, opt, r);
      reports.push_back(r);
      continue;
    }
    for (const std::string& bytes : all)
      for (const TableReport& t : unpack(bytes))
        if (t.material == order[i]) r = t;
    reports.push_back(r);
  }
  return reports;
}

}  // namespace generate_detail
}  // namespace damka
