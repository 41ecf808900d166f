// Phase profiles (phase_profile.hpp): a build's measurement is consistent,
// kept in the folder's notes (with its metrics) across a resume, and the
// dry run's thread scaling follows a stored profile; its times follow the
// metrics, and its calibration ignores other work on the machine.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>
#include <vector>

#include "damka/generate.hpp"
#include "damka/phase_json.hpp"
#include "damka/phase_notes.hpp"
#include "damka/phase_profile.hpp"
#include "damka/slots.hpp"
#include "damka/table_paths.hpp"
#include "generate_detail.hpp"
#include "generator/generate_helpers.hpp"

namespace damka {
namespace {

namespace fs = std::filesystem;

fs::path fresh_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("damka_phase_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  return dir;
}

PhaseProfile profile_of(int threads, double wall, double busy, Phase phase) {
  PhaseProfile p;
  p.threads = threads;
  p[phase] = PhaseTime{wall, busy};
  return p;
}

TEST(PhaseScaling, AmdahlPerPhaseFromWallAndBusy) {
  // Two threads busy the whole time: all parallel work, 20 s on one thread.
  PhaseScaling s = scaling_of(profile_of(2, 10, 20, Phase::Units));
  EXPECT_DOUBLE_EQ(s.work[0], 20);
  EXPECT_DOUBLE_EQ(s.parallel[0], 1);
  EXPECT_DOUBLE_EQ(predicted_seconds(s, 20, 4), 5);
  // One thread busy of two: all serial, no speed-up with any thread count.
  s = scaling_of(profile_of(2, 10, 10, Phase::Team));
  EXPECT_DOUBLE_EQ(s.parallel[1], 0);
  for (int n : {1, 2, 8, 16}) EXPECT_DOUBLE_EQ(predicted_seconds(s, 7, n), 7);
  // Half the wall time with both busy: 5 s serial + 10 s parallel.
  s = scaling_of(profile_of(2, 10, 15, Phase::Write));
  EXPECT_DOUBLE_EQ(s.work[3], 15);
  EXPECT_NEAR(predicted_seconds(s, 15, 2), 10, 1e-9);
  EXPECT_NEAR(predicted_seconds(s, 15, 10), 6, 1e-9);
  // I/O waits (busy below wall) are serial; one thread: the default shares.
  EXPECT_DOUBLE_EQ(scaling_of(profile_of(4, 10, 3, Phase::Flush)).parallel[2], 0);
  EXPECT_DOUBLE_EQ(scaling_of(profile_of(1, 10, 9, Phase::Units)).parallel[0], kDefaultParallel[0]);
  // The defaults speed up, kings-only materials less than the others.
  const double units8 = predicted_seconds(default_scaling(BuildKind::Units), 1, 8);
  const double kings8 = predicted_seconds(default_scaling(BuildKind::KingsOnly), 1, 8);
  EXPECT_LT(units8, 0.5);
  EXPECT_LT(units8, kings8);
  EXPECT_LT(kings8, 1);
}

TEST(PhaseProfile, JsonRoundTrip) {
  PhaseProfile p = profile_of(3, 1.5, 4, Phase::Team);
  p[Phase::Other] = PhaseTime{0.25, 0.125, 0.0625, 17};
  p.reads = 0.5;
  const nlohmann::json j = phase_profile_json(p);
  EXPECT_DOUBLE_EQ(j["kernel_seconds"].get<double>(), 0.0625);
  EXPECT_DOUBLE_EQ(j["page_faults"].get<double>(), 17);
  auto back = phase_profile_from_json(j);
  ASSERT_TRUE(back.ok()) << back.message();
  EXPECT_EQ(back->threads, 3);
  EXPECT_DOUBLE_EQ(back->reads, 0.5);
  for (int k = 0; k < kPhases; ++k) {
    EXPECT_DOUBLE_EQ(back->phase[k].wall, p.phase[k].wall);
    EXPECT_DOUBLE_EQ(back->phase[k].busy, p.phase[k].busy);
    EXPECT_DOUBLE_EQ(back->phase[k].kernel, p.phase[k].kernel);
    EXPECT_DOUBLE_EQ(back->phase[k].faults, p.phase[k].faults);
  }
  // Notes written before the kernel's share was measured read as 0.
  nlohmann::json old = j;
  for (auto& [name, phase] : old["phases"].items()) {
    phase.erase("kernel_seconds");
    phase.erase("page_faults");
  }
  auto old_back = phase_profile_from_json(old);
  ASSERT_TRUE(old_back.ok()) << old_back.message();
  EXPECT_DOUBLE_EQ(old_back->phase[static_cast<int>(Phase::Other)].busy, 0.125);
  EXPECT_DOUBLE_EQ(old_back->phase[static_cast<int>(Phase::Other)].kernel, 0);
  EXPECT_FALSE(phase_profile_from_json(nlohmann::json{{"threads", 2}}).ok());
}

// Every built material's profile: busy within threads x wall, the phases
// summing to the table's time; the notes keep them, and a resumed run keeps
// the entries of the materials built before it.
TEST(PhaseProfile, BuildMeasuresConsistentlyAndKeepsNotesAcrossAResume) {
  const Rules& r = rules_of(Variant::Russian);
  const fs::path dir = fresh_dir("build");
  GenerateOptions o = test::options(dir, 4, 2);
  o.metrics = MetricSet{true, false, false};  // not the default: the notes must say so
  auto built = generate(r, o);
  ASSERT_TRUE(built.ok()) << built.message();
  bool kings_only = false, units = false;
  double faults = 0;
  for (const TableReport& t : *built) {
    SCOPED_TRACE(t.material.name());
    ASSERT_EQ(t.action, TableReport::Action::Built);
    const PhaseProfile& p = t.profile;
    EXPECT_EQ(p.threads, 2);
    for (int k = 0; k < kPhases; ++k) {
      EXPECT_GE(p.phase[k].wall, 0);
      EXPECT_GE(p.phase[k].busy, 0);
      // CPU time is counted in clock ticks: a few ms of slack.
      EXPECT_LE(p.phase[k].busy, p.threads * p.phase[k].wall + 0.02) << phase_name(static_cast<Phase>(k));
      // The kernel's part of it (getrusage's ticks: more slack).
      EXPECT_GE(p.phase[k].kernel, 0);
      EXPECT_LE(p.phase[k].kernel, p.phase[k].busy + 0.05) << phase_name(static_cast<Phase>(k));
      EXPECT_GE(p.phase[k].faults, 0);
    }
    faults += p.total().faults;
    EXPECT_NEAR(p.wall(), t.seconds, 0.05 * t.seconds + 0.01);
    EXPECT_GE(p.reads, 0);
    EXPECT_LE(p.reads, p.busy() + 0.02);
    kings_only = kings_only || p[Phase::Team].wall > 0;
    units = units || p[Phase::Units].wall > 0;
    // A material is solved unit by unit or by a team, never both.
    if (t.material.men() > 0) {
      EXPECT_EQ(p[Phase::Team].wall, 0);
    }
  }
  EXPECT_TRUE(kings_only);
  EXPECT_TRUE(units);
  EXPECT_GT(faults, 0);  // the units' arrays are touched for the first time
  const fs::path notes_file = phase_notes_path(r, dir);
  PhaseNotes notes = read_phase_notes(notes_file);
  ASSERT_EQ(notes.size(), built->size());
  for (const TableReport& t : *built) {
    ASSERT_TRUE(notes.count(t.material.name())) << t.material.name();
    EXPECT_NEAR(notes[t.material.name()].profile.wall(), t.profile.wall(), 1e-9);
    EXPECT_EQ(notes[t.material.name()].metrics, o.metrics) << t.material.name();
  }
  // Resume: the last material's files gone, the next run builds it alone.
  const Material last = built->back().material;
  for (Metric m : {Metric::WDL, Metric::DTW, Metric::DTC}) fs::remove(table_path(dir, r, last, m));
  auto again = generate(r, o);
  ASSERT_TRUE(again.ok()) << again.message();
  int rebuilt = 0;
  for (const TableReport& t : *again) rebuilt += t.action == TableReport::Action::Built;
  EXPECT_EQ(rebuilt, 1);
  notes = read_phase_notes(notes_file);
  EXPECT_EQ(notes.size(), built->size());
  EXPECT_NEAR(notes[built->front().material.name()].profile.wall(), built->front().profile.wall(), 1e-9);
  // Notes written before metrics were kept: the default set; an entry
  // whose metrics are not metrics is left out.
  {
    const std::string a = built->front().material.name(), b = built->back().material.name();
    std::ifstream in(notes_file);
    nlohmann::json j = nlohmann::json::parse(in);
    j["materials"][a].erase("metrics");
    j["materials"][b]["metrics"] = "wdl,dtz";
    std::ofstream(notes_file) << j.dump();
    notes = read_phase_notes(notes_file);
    ASSERT_TRUE(notes.count(a));
    EXPECT_EQ(notes[a].metrics, MetricSet{});
    EXPECT_FALSE(notes.count(b));
    EXPECT_EQ(notes.size(), built->size() - 1);
  }
  // Not notes: no notes (only a hint for the dry run).
  { std::ofstream(notes_file) << "{ not json"; }
  EXPECT_TRUE(read_phase_notes(notes_file).empty());
  fs::remove_all(dir);
}

// The dry run's time for 8 threads against 1 (one calibration rate for
// both: the timed one would add its noise).
double eight_against_one(const Rules& r, const fs::path& dir) {
  GenerateOptions o = test::options(dir, 4, 1);
  o.calibrated_rate = 1e6;
  auto total = [&](int threads) {
    o.threads = threads;
    auto plan = plan_generation(r, o);
    EXPECT_TRUE(plan.ok()) << plan.message();
    if (!plan.ok()) return 1.0;
    double s = 0;
    for (const TableReport& t : *plan) s += t.predicted.seconds;
    return s;
  };
  return total(8) / total(1);
}

TEST(PhaseProfile, DryRunScalesThreadsByTheStoredProfile) {
  const Rules& r = rules_of(Variant::Russian);
  // No notes: the built-in shares speed 8 threads up.
  const fs::path plain = fresh_dir("plain");
  fs::create_directories(plain);
  EXPECT_LT(eight_against_one(r, plain), 0.6);
  // Notes of an earlier run on 2 threads where one thread did all the work
  // in every phase, for both kinds of material: no speed-up predicted.
  const fs::path serial = fresh_dir("serial");
  fs::create_directories(serial);
  PhaseNotes notes;
  PhaseProfile p;
  p.threads = 2;
  for (int k = 0; k < kPhases; ++k) p.phase[k] = PhaseTime{1.0, 1.0};
  notes["2Kv1K"] = PhaseNote{p, MetricSet{}};
  notes["1Mv1M"] = PhaseNote{p, MetricSet{}};
  ASSERT_TRUE(write_phase_notes(phase_notes_path(r, serial), notes).ok());
  EXPECT_NEAR(eight_against_one(r, serial), 1.0, 1e-9);
  fs::remove_all(plain);
  fs::remove_all(serial);
}

// The dry run's seconds per material of `-n 4 -t 2` (calibrated rate 1e6)
// for `metrics`, in a folder whose notes hold one earlier build of
// `material` (none when busy_per_phase is 0) with `noted` metrics.
std::map<std::string, double> planned(const fs::path& dir, double busy_per_phase, const char* material,
                                      MetricSet noted = {}, MetricSet metrics = {}) {
  const Rules& r = rules_of(Variant::Russian);
  fs::remove_all(dir);
  fs::create_directories(dir);
  if (busy_per_phase > 0) {
    PhaseNotes notes;
    PhaseProfile p;
    p.threads = 2;
    for (int k = 0; k < kPhases; ++k) p.phase[k] = PhaseTime{busy_per_phase, busy_per_phase * 1.5};
    notes[material] = PhaseNote{p, noted};
    EXPECT_TRUE(write_phase_notes(phase_notes_path(r, dir), notes).ok());
  }
  GenerateOptions o = test::options(dir, 4, 2);
  o.calibrated_rate = 1e6;
  o.metrics = metrics;
  auto plan = plan_generation(r, o);
  EXPECT_TRUE(plan.ok()) << plan.message();
  std::map<std::string, double> seconds;
  if (plan.ok())
    for (const TableReport& t : *plan) seconds[t.material.name()] = t.predicted.seconds;
  fs::remove_all(dir);
  return seconds;
}

// A folder whose earlier builds ran slower than the model (their CPU
// seconds) gets a slower plan for the same kind of material, in
// proportion; kings-only materials keep theirs; tables too small to tell
// change nothing.
TEST(PhaseProfile, DryRunTimesFollowTheFolderMeasuredSpeed) {
  const fs::path dir = fresh_dir("fitted");
  ASSERT_GE(table_slots(*Material::parse("2K1Mv1K1M")), 1'000'000u);
  const auto slow = planned(dir, 2.0, "2K1Mv1K1M");
  const auto slower = planned(dir, 4.0, "2K1Mv1K1M");
  // Under a million positions: not a measure of speed (only of the phases' shares).
  const auto tiny = planned(dir, 2.0, "1K1Mv1K");
  const auto tinier = planned(dir, 4.0, "1K1Mv1K");
  const auto model = planned(dir, 0, "");
  ASSERT_FALSE(model.empty());
  for (const auto& [name, secs] : model) {
    ASSERT_GT(secs, 0) << name;
    const bool kings_only = Material::parse(name)->men() == 0;
    EXPECT_NEAR(slower.at(name) / slow.at(name), kings_only ? 1.0 : 2.0, 1e-9) << name;
    if (kings_only) {
      EXPECT_NEAR(slow.at(name), model.at(name), 1e-9 * secs) << name;
    }
    EXPECT_NEAR(tinier.at(name) / tiny.at(name), 1.0, 1e-9) << name;
  }
}

// A build of fewer metrics is planned faster, and a folder's notes are
// compared like with like: notes of an all-metrics build plan a WDL-only
// one in the model's proportion, and notes of a WDL-only build that took
// as long mean a slower machine for every metric set.
TEST(PhaseProfile, DryRunTimesFollowTheMetrics) {
  const MetricSet all{}, wdl{false, false, false}, dtw{true, false, false}, dtc{false, true, false};
  const fs::path dir = fresh_dir("metrics");
  const auto model_all = planned(dir, 0, "", all, all);
  const auto model_wdl = planned(dir, 0, "", all, wdl);
  const auto model_dtw = planned(dir, 0, "", all, dtw);
  const auto model_dtc = planned(dir, 0, "", all, dtc);
  const auto noted_all_wdl = planned(dir, 2.0, "2K1Mv1K1M", all, wdl);
  const auto noted_all_all = planned(dir, 2.0, "2K1Mv1K1M", all, all);
  const auto noted_wdl_all = planned(dir, 2.0, "2K1Mv1K1M", wdl, all);
  ASSERT_FALSE(model_all.empty());
  for (const auto& [name, secs] : model_all) {
    ASSERT_GT(secs, 0) << name;
    EXPECT_LT(model_wdl.at(name), model_dtw.at(name)) << name;
    EXPECT_LT(model_wdl.at(name), model_dtc.at(name)) << name;
    EXPECT_LT(model_dtw.at(name), secs) << name;
    EXPECT_LT(model_dtc.at(name), secs) << name;
    const double share = model_wdl.at(name) / secs;
    EXPECT_NEAR(noted_all_wdl.at(name) / noted_all_all.at(name), share, 1e-9) << name;
    if (Material::parse(name)->men() > 0) {
      EXPECT_NEAR(noted_wdl_all.at(name) / noted_all_all.at(name), 1 / share, 1e-9) << name;
    }
  }
}

// The dry run's calibration counts CPU time: threads spinning on every
// core (three per core) hardly change it, where by wall time it would fall
// to about a quarter.
TEST(PhaseProfile, DryRunCalibrationIgnoresOtherWorkOnTheMachine) {
  const Rules& r = rules_of(Variant::Russian);
  const double alone = generate_detail::calibrate(r);
  std::atomic<bool> stop{false};
  std::vector<std::thread> spinners;
  const unsigned n = 3 * std::max(1u, std::thread::hardware_concurrency());
  for (unsigned i = 0; i < n; ++i)
    spinners.emplace_back([&stop] {
      while (!stop.load(std::memory_order_relaxed)) {
      }
    });
  const double crowded = generate_detail::calibrate(r);
  stop = true;
  for (std::thread& t : spinners) t.join();
  RecordProperty("crowded_per_alone", std::to_string(crowded / alone));
  EXPECT_GT(crowded, alone / 2) << alone;
  EXPECT_LT(crowded, alone * 2) << alone;
}

}  // namespace
}  // namespace damka
