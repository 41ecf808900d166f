// `damka generate`: solve materials in build order and write their files.
#include "damka/generate.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <set>
#include <system_error>

#include "damka/open_table.hpp"
#include "damka/output_lock.hpp"
#include "damka/rank_plan.hpp"
#include "damka/safe_file.hpp"
#include "damka/slots.hpp"
#include "damka/table_file.hpp"
#include "damka/table_paths.hpp"
#include "damka/value_oracle.hpp"
#include "file_successors.hpp"
#include "generate_detail.hpp"
#include "load_resident.hpp"
#include "phase_clock.hpp"
#include "damka/phase_notes.hpp"
#include "resolve_derived.hpp"
#include "saved_codes.hpp"
#include "table_sink.hpp"

namespace damka {
namespace generate_detail {

std::vector<std::pair<Material, std::uint64_t>> over_budget(const std::vector<Material>& order,
                                                            const std::vector<bool>& build, const GenerateOptions& opt) {
  const int threads = std::max(1, opt.threads);
  std::vector<std::pair<Material, std::uint64_t>> out;
  for (std::size_t i = 0; i < order.size(); ++i) {
    if (!build[i]) continue;
    const std::uint64_t need = plan_memory(order[i], opt.metrics, threads, kCachePerThread, opt.memory_budget).minimum;
    if (need > opt.memory_budget) out.emplace_back(order[i], need);
  }
  return out;
}

Status memory_refusal(const std::vector<std::pair<Material, std::uint64_t>>& short_of, const GenerateOptions& opt) {
  if (short_of.empty()) return {};
  auto worst = short_of.begin();
  for (auto it = short_of.begin(); it != short_of.end(); ++it)
    if (it->second > worst->second) worst = it;
  std::string why = worst->first.name() + ": " + memory_shortfall(worst->second, std::max(1, opt.threads), opt.memory_budget);
  if (short_of.size() > 1)
    why += "; " + std::to_string(short_of.size() - 1) + (short_of.size() == 2 ? " other material" : " other materials") +
           " to build need more than the limit too";
  return Error(why);
}

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



Progress table_progress(const Material& m, std::size_t number, std::size_t tables, std::uint64_t done,
                        std::uint64_t total, std::uint64_t overall_done, std::uint64_t overall_total, double elapsed) {
  Progress p;
  p.material = m;
  p.table_number = number;
  p.tables_total = tables;
  p.done = done;
  p.total = total;
  p.overall_done = overall_done;
  p.overall_total = overall_total;
  p.elapsed = elapsed;
  return p;
}

void fill_present(const Rules& rules, const GenerateOptions& opt, TableReport& r) {
  r.action = TableReport::Action::Skipped;
  const std::vector<Metric> fm = file_metrics(opt.metrics);
  Env& env = env_or_default(opt.env);
  for (int k = 0; k < 3; ++k)
    if (std::find(fm.begin(), fm.end(), kFileMetrics[k]) != fm.end())
      if (auto info = env.stat(table_path(opt.out, rules, r.material, kFileMetrics[k])); info)
        r.bytes[k] = info->size;  // a file that cannot be stat'ed counts 0 bytes (its check says why)
}

ResidentStep resident_step(ResidentTables& resident, std::size_t i, const Material& m, const MetricSet& metrics,
                           int threads, std::uint64_t budget) {
  // The tables and the build's plan stay within 7/8 of the budget: the
  // tables are counted exactly, so what the plan does not see (allocator
  // slack, the sink's buffers) has the rest.
  const std::uint64_t share = budget / 8 * 7;
  ResidentStep step;
  const MemoryPlan plan = plan_memory(m, metrics, threads, kCachePerThread, budget);
  // A store held in memory that leaves no room for the tables m captures
  // into goes to disk instead: reading them from their files (a block
  // decode, and a search where the successor must capture) cost more than
  // writing the store once and reading it back.  Russian -n 7, all metrics,
  // --memory 16G: 2K2Mv2K1M's store of 11.3 GB left 0.9 GB for tables; with
  // the store on disk 6.8 GB, and rebuilt alone (the rest present) its units
  // took 490-593 s instead of 731-738, the whole build 707-800 s instead of 853-857
  // (the tables' loading and the store's writes included).
  const std::uint64_t captures = resident.capture_bytes(i);
  step.store_on_disk = !plan.spill && plan.store > 0 && plan.peak + captures > share;
  const std::uint64_t need =
      step.store_on_disk ? plan_memory(m, metrics, threads, kCachePerThread, budget, KingsOnly::Auto, true).peak
                         : plan.peak;
  // Room for the tables m captures into first, from tables m does not read.
  resident.make_room(i, need, share, resident.capture_bytes(i, true));
  // Kept after its build only beside the tables it captures into (when its
  // store made room for them).
  step.keep = resident.keep(i, need + (step.store_on_disk ? resident.capture_bytes(i, true) : 0), share);
  std::uint64_t held = resident.bytes() + (step.keep ? resident.bytes_of(i) : 0);
  step.load = resident.to_load(i, share - std::min(share, held + need));
  for (std::size_t j : step.load) held += resident.bytes_of(j);
  step.budget = budget - std::min(budget, held);
  step.held = held;
  return step;
}

Status build_table(const Rules& rules, const GenerateOptions& opt, LevelSplit* split,
                   const std::function<void(std::uint64_t, std::uint64_t)>& progress, TableReport& r,
                   ResidentTables* resident, std::size_t index, const LoadTalk& talk, KeptArrays* kept,
                   KeptScratch* scratch, SavedCodes* saved) {
  const Material m = r.material;
  const int threads = std::max(1, opt.threads);
  const double wall0 = engine_detail::wall_seconds();
  const engine_detail::Usage used0 = engine_detail::Usage::now();
  const Metric primary = opt.metrics.dtw ? Metric::DTW : Metric::WDL;
  ResidentStep step;
  step.budget = opt.memory_budget;
  Env& env = env_or_default(opt.env);
  if (resident != nullptr) {
    step = resident_step(*resident, index, m, opt.metrics, threads, opt.memory_budget);
    // Tables dropped while materials still to build read them: their true
    // codes to saved files, read back instead of their table files.
    for (auto& [s, codes] : resident->take_dropped()) {
      const Status w = saved != nullptr ? saved->save(s, *codes) : Status(Error("not saved"));
      if (w.ok()) continue;
      resident->unsave(s);
      if (saved != nullptr && talk.notice) talk.notice(w.message() + " (read from its table files instead)");
    }
  }
  r.resident_bytes = step.held;
  // The previous store's arrays are not in resident_step's count: given
  // back before tables are read into memory beside them.
  if (!step.load.empty()) {
    if (kept != nullptr) kept->release();
    if (scratch != nullptr) scratch->release();
  }
  for (std::size_t j : step.load) {  // present successors, read once into memory
    const Material s = resident->material(j);
    const bool from_saved = saved != nullptr && saved->has(s);
    if (talk.notice)
      talk.notice("loading " + s.name() + " (" + std::to_string(table_slots(s)) + " positions) into memory " +
                  (from_saved ? "from its saved codes " : "") + "for " + m.name() + " and the materials after it");
    std::function<void(std::uint64_t, std::uint64_t)> loading;
    if (talk.loading) loading = [&](std::uint64_t done, std::uint64_t total) { talk.loading(s, done, total); };
    Expected<ResidentTables::Codes> codes = Error("");
    if (from_saved) {
      if (loading) loading(0, table_slots(s));
      codes = saved->load(s, kept);
      if (codes && loading) loading(table_slots(s), table_slots(s));
      if (!codes && talk.notice) talk.notice(codes.message() + " (read from its table files instead)");
    }
    if (!codes) codes = load_resident(rules, opt.out, s, primary, resident, threads, env, loading, kept);
    if (!codes) return Error(m.name() + ": " + codes.message(), codes.code());
    resident->add(j, std::move(*codes));
  }
  auto succ = FileSuccessors::open(rules, opt.out, successors(m), primary, kCachePerThread, threads, resident, env);
  if (!succ) return Error(m.name() + ": cannot read a table it converts into: " + succ.message());
  using From = TableReport::SuccessorRead::From;
  for (const auto& [s, in_memory] : (*succ)->sources()) {
    const bool loaded = std::any_of(step.load.begin(), step.load.end(),
                                    [&, s = s](std::size_t j) { return resident->material(j) == s; });
    r.add_successor_read(s, !in_memory ? From::Files : loaded ? From::Loaded : From::Memory);
  }
  const bool writes = split == nullptr || split->writer();
  FileSink sink(rules, opt.out, m, opt.metrics, opt.compression, threads, env, opt.one_side);
  NoSink none;
  if (writes)
    if (Status s = sink.open(); !s.ok()) return s;
  BuildOptions bo;
  bo.metrics = opt.metrics;
  bo.threads = threads;
  bo.memory_budget = step.budget;
  bo.spill_dir = table_dir(opt.out, rules);
  bo.store_on_disk = step.store_on_disk;
  bo.progress = progress;
  bo.split = split;
  bo.mark_derived = true;  // capture positions are don't-care in the files
  bo.env = &env;
  bo.before_unit = opt.before_unit;
  bo.kept = kept;
  bo.scratch = scratch;
  // Its pages from the kept ones (the last store's, the tables dropped
  // from memory), and back there when it is dropped in turn.
  auto resolved = step.keep ? std::make_shared<BigVector<std::uint16_t>>(HugePageAllocator<std::uint16_t>(kept))
                            : nullptr;
  bo.resolved = resolved.get();
  BuildStats bs;
  if (Status s = build_material(rules, m, **succ, writes ? static_cast<ValueSink&>(sink) : none, bo, bs); !s.ok())
    return s;
  succ->reset();  // its block cache freed inside the profile's time
  r.profile = bs.profile;
  if (writes) {
    engine_detail::PhaseClock clock(r.profile, Phase::Write);
    if (Status s = sink.finish(r); !s.ok()) return s;
  }
  if (resolved) resident->add(index, std::move(resolved));
  engine_detail::settle_other(r.profile, engine_detail::wall_seconds() - wall0, engine_detail::Usage::now() - used0);
  r.action = TableReport::Action::Built;
  r.white_to_move = bs.side[0];
  r.black_to_move = bs.side[1];
  r.spilled = bs.spilled;
  return {};
}

}  // namespace generate_detail

using namespace generate_detail;

std::uint64_t default_memory_budget() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), size = ::sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || size <= 0) return std::uint64_t{8} << 30;
  return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(size) / 10 * 8;
}


Status check_material_files(const Rules& rules, const std::filesystem::path& dir, const Material& canonical,
                            bool full_checksum, const MetricSet& metrics, Env& env) {
  for (Metric m : file_metrics(metrics)) {
    const auto path = table_path(dir, rules, canonical, m);
    if (auto info = env.stat(path); !info) {
      if (info.code() == ErrorCode::NotFound) return Error(path.string() + ": missing", ErrorCode::NotFound);
      return Error(path.string() + ": " + info.message() + " (I/O error)", ErrorCode::Io);
    }
    auto reader = open_table(path, rules, canonical, m, FileAccess::Pread, env);
    if (!reader) return reader.error();
    if (full_checksum)
      if (Status s = (*reader)->verify_file_checksum(); !s.ok()) return s;
  }
  return {};
}

namespace {

// A one-side distance file (FORMAT.md 3.5, one side to move): the won and
// lost positions of the side it leaves out, one ply from the stored side's
// true values in `codes` (their quiet moves lead there) and from the files
// of the materials their promotions lead to.  `codes`: true values of every
// other slot (draws and capture positions resolved).
Status fill_unstored_side(const Rules& rules, SuccessorFiles& successor_files, const Material& canonical,
                          Metric metric, StoredSide stored, std::vector<std::uint16_t>& codes) {
  const MaterialIndex index(canonical);
  const std::uint64_t half = codes.size() / 2;
  const std::uint64_t first = stored == StoredSide::White ? half : 0;
  auto files = successor_files.get("cannot value its unstored side");
  if (!files) return files.error();
  std::unique_ptr<SuccessorReader> reader = *files != nullptr ? (*files)->reader() : nullptr;
  MoveList moves;
  SlotCursor slots(index);
  for (std::uint64_t slot = first; slot < first + half; ++slot) {
    const Value own = Value::decode(codes[slot]);
    const Position& p = slots.at(slot);
    if (own.wdl == Wdl::Draw || is_derived(rules, p)) continue;
    generate_moves(rules, p, moves);
    Value best = Value::loss(0);
    for (std::size_t i = 0; i < moves.size(); ++i) {
      const Position q = apply(p, moves[i]);
      Value sv;
      if (moves[i].promotes) {
        if (!reader) return Error(canonical.name() + ": a promotion with no successor material");
        sv = Value::decode(reader->code(q));
        if (!reader->error().empty()) return Error(reader->error());
      } else {
        sv = Value::decode(codes[locate_slot(index, q)]);
      }
      const Value mv = move_value(sv, metric, moves[i].promotes);
      if (i == 0 || better_value(mv, best)) best = mv;
    }
    codes[slot] = best.encode();
  }
  return {};
}

}  // namespace

Expected<SolvedTable> load_solved_table(const Rules& rules, const std::filesystem::path& dir,
                                        const Material& canonical, const TableSource* loaded, Env& env) {
  SolvedTable t;
  t.material = canonical;
  StoredSide stored_side = StoredSide::Both;
  auto read_codes = [&](Metric m, std::vector<std::uint16_t>& codes) -> Status {
    auto reader = open_table(table_path(dir, rules, canonical, m), rules, canonical, m, FileAccess::Pread, env);
    if (!reader) return reader.error();
    stored_side = (*reader)->header().stored_side;
    codes.clear();
    codes.reserve((*reader)->header().slots);
    std::vector<std::uint16_t> block;
    for (std::uint64_t b = 0; b < (*reader)->num_blocks(); ++b) {
      if (Status s = (*reader)->read_block(b, block); !s.ok()) return s;
      codes.insert(codes.end(), block.begin(), block.end());
    }
    if (codes.size() != table_slots(canonical)) return Error((*reader)->path().string() + ": wrong number of positions");
    return {};
  };
  std::vector<std::uint16_t> wdl;
  if (Status s = read_codes(Metric::WDL, wdl); !s.ok()) return s.error();
  for (Metric m : {Metric::DTW, Metric::DTC}) {
    std::vector<std::uint16_t>& codes = m == Metric::DTW ? t.dtw : t.dtc;
    if (Status s = read_codes(m, codes); !s.ok()) return s.error();
    // Drawn positions from the WDL file (their distance entries are don't
    // care).  Derived entries of both files mean nothing; resolve_derived
    // gives them their true values.
    for (std::size_t i = 0; i < codes.size(); ++i) {
      Value v;
      (void)distance_value(wdl[i], codes[i], v);
      codes[i] = v.encode();
    }
    // The files of the materials it converts into: opened once for both.
    SuccessorFiles successor_files(rules, dir, canonical, m, env);
    if (auto r = resolve_derived(rules, canonical, m, codes, successor_files, loaded); !r) return r.error();
    if (stored_side != StoredSide::Both)
      if (Status s = fill_unstored_side(rules, successor_files, canonical, m, stored_side, codes); !s.ok())
        return s.error();
  }
  return t;
}


Expected<std::vector<TableReport>> generate(const Rules& rules, const GenerateOptions& opt,
                                            const GenerateCallbacks& cb) {
  if (opt.cluster != nullptr && opt.cluster->size() > 1) return generate_on_ranks(rules, opt, cb, *opt.cluster);
  const auto start = std::chrono::steady_clock::now();
  std::error_code ec;
  const std::filesystem::path dir = table_dir(opt.out, rules);
  const std::vector<Material> order = targets(opt);
  // Which materials need building (their files are missing or invalid);
  // a damaged file is rebuilt, and said so.
  std::vector<bool> present(order.size());
  std::uint64_t overall_total = 0, overall_done = 0;
  std::vector<std::string> rebuilding;
  const auto check_present = [&] {
    overall_total = 0;
    rebuilding.clear();
    for (std::size_t i = 0; i < order.size(); ++i) {
      const Status s = check_material_files(rules, opt.out, order[i], true, opt.metrics, env_or_default(opt.env));
      present[i] = s.ok();
      if (!present[i]) overall_total += table_slots(order[i]);
      if (!s.ok() && s.code() != ErrorCode::NotFound) rebuilding.push_back(order[i].name() + ": " + s.message());
    }
  };
  const Status made = env_or_default(opt.env).make_dirs(dir);
  // One run per folder and family; stale temporary files removed (output_lock.hpp).
  auto output_lock =
      !made.ok() ? Expected<OutputLock>(made.error()) : lock_output(rules, opt.out, cb.notice, env_or_default(opt.env));
  if (!output_lock) {
    // A folder this user cannot write (read-only, or another user's) is
    // fine when every table is already there: nothing needs writing.
    if (output_lock.code() != ErrorCode::Io) return output_lock.error();
    check_present();
    if (overall_total != 0) return output_lock.error();
    if (cb.notice) cb.notice("every table is present; " + output_lock.message() + " (nothing to build)");
  } else {
    report_stale_notes(rules, opt.out, cb.notice, env_or_default(opt.env));
    check_present();
  }
  if (cb.notice)
    for (const auto& why : rebuilding) cb.notice("rebuilding " + why);

  // Finished tables later materials convert into stay in memory when the
  // budget allows (resident_tables.hpp).
  std::vector<bool> build(order.size());
  for (std::size_t i = 0; i < order.size(); ++i) build[i] = !present[i];
  // A budget too small for a material is said before anything is built,
  // not when its turn comes (hours into a 7-piece run).
  if (Status s = memory_refusal(over_budget(order, build, opt), opt); !s.ok()) return s.error();
  // Declared before the tables kept in memory, whose arrays go back to it
  // when dropped: it outlives them.
  KeptArrays kept;  // pages of one material's store and of dropped tables, for the next ones (huge_pages.hpp)
  ResidentTables resident(order, build);
  resident.save_dropped(true);
  // The phase notes: earlier runs' entries kept, this run's added as it goes.
  const std::filesystem::path notes_path = phase_notes_path(rules, opt.out);
  PhaseNotes notes;
  if (output_lock && overall_total != 0) notes = read_phase_notes(notes_path, env_or_default(opt.env));
  std::vector<TableReport> reports;
  KeptScratch scratch;  // and its threads' unit scratch (engine.hpp)
  SavedCodes saved(dir, env_or_default(opt.env));  // tables dropped from memory that later materials read
  for (std::size_t i = 0; i < order.size(); ++i) {
    const Material m = order[i];
    TableReport r;
    r.material = m;
    r.positions = table_slots(m);
    const auto t0 = std::chrono::steady_clock::now();
    if (present[i]) {
      fill_present(rules, opt, r);
    } else {
      const auto at = [&](std::uint64_t done, std::uint64_t total) {
        return table_progress(m, i + 1, order.size(), done, total, overall_done + done, overall_total,
                              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      };
      const auto progress = [&](std::uint64_t done, std::uint64_t total) {
        if (cb.progress) cb.progress(at(done, total));
      };
      LoadTalk talk;
      talk.notice = cb.notice;
      if (cb.progress)
        talk.loading = [&](const Material& s, std::uint64_t done, std::uint64_t total) {
          Progress p = at(0, r.positions);
          p.loading = s;
          p.load_done = done;
          p.load_total = total;
          cb.progress(p);
        };
      if (Status s =
              build_table(rules, opt, nullptr, progress, r, opt.keep_finished ? &resident : nullptr, i, talk, &kept,
                          &scratch, &saved);
          !s.ok())
        return s.error();
      saved.forget_unneeded(resident, i + 1);
      overall_done += r.positions;
      // The table's time is its profile's (the notes' write below is not the table's).
      r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      notes[m.name()] = PhaseNote{r.profile, opt.metrics};
      // A disk too full for the notes is one for the next table too: a clean error as theirs.
      if (Status s = write_phase_notes(notes_path, notes, env_or_default(opt.env)); !s.ok()) return s.error();
    }
    if (present[i]) r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (cb.table_done) cb.table_done(r);
    reports.push_back(r);
  }
  return reports;
}

}  // namespace damka
