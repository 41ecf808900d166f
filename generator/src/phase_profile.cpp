// Phase profiles and the thread-scaling model (phase_profile.hpp).
#include "damka/phase_profile.hpp"

#include <algorithm>

namespace damka {

// The share of each phase's work that runs in parallel, as the code is
// built: units share nothing but the successor caches' memory; a team
// meets at a barrier per distance and builds its predecessor lists alone;
// a flush writes a spilled store from one thread; the writer compresses
// blocks in parallel and writes them in order.  Estimates: the 2-core
// machine these were written on was saturated by other work (2026-11-26;
// a -t 2 run got one core), so no run there could measure them.
const std::array<double, kPhases> kDefaultParallel = {0.95, 0.60, 0.50, 0.60, 0.10};

std::string_view phase_name(Phase p) {
  switch (p) {
    case Phase::Units: return "units";
    case Phase::Team: return "team";
    case Phase::Flush: return "flush";
    case Phase::Write: return "write";
    case Phase::Other: return "other";
  }
  return "?";
}

double PhaseProfile::wall() const { return total().wall; }

double PhaseProfile::busy() const { return total().busy; }

PhaseTime PhaseProfile::total() const {
  PhaseTime s;
  for (const PhaseTime& t : phase) {
    s.wall += t.wall;
    s.busy += t.busy;
    s.kernel += t.kernel;
    s.faults += t.faults;
  }
  return s;
}

void PhaseProfile::add(const PhaseProfile& o) {
  threads = std::max(threads, o.threads);
  for (int k = 0; k < kPhases; ++k) {
    phase[k].wall += o.phase[k].wall;
    phase[k].busy += o.phase[k].busy;
    phase[k].kernel += o.phase[k].kernel;
    phase[k].faults += o.phase[k].faults;
  }
  reads += o.reads;
}

PhaseScaling scaling_of(const PhaseProfile& profile) {
  PhaseScaling s;
  const double t = std::max(1, profile.threads);
  for (int k = 0; k < kPhases; ++k) {
    const double W = std::max(0.0, profile.phase[k].wall), B = std::max(0.0, profile.phase[k].busy);
    if (t <= 1) {
      s.work[k] = W;
      s.parallel[k] = kDefaultParallel[k];
      continue;
    }
    const double p = std::clamp((B - W) * t / (t - 1), 0.0, t * W);
    const double serial = W - p / t;  // >= 0; I/O waits count as serial
    s.work[k] = serial + p;
    s.parallel[k] = s.work[k] > 0 ? p / s.work[k] : kDefaultParallel[k];
  }
  return s;
}

PhaseScaling default_scaling(BuildKind kind) {
  // The phases' shares of the wall time, measured on `generate -v russian
  // -n 5 -t 2` (2026-11-26): materials with men 34.3 s, kings-only 3.1 s.
  static constexpr std::array<double, kPhases> kUnits = {0.755, 0.00, 0.03, 0.205, 0.01};
  static constexpr std::array<double, kPhases> kKingsOnly = {0.00, 0.90, 0.006, 0.088, 0.006};
  PhaseScaling s;
  s.work = kind == BuildKind::KingsOnly ? kKingsOnly : kUnits;
  s.parallel = kDefaultParallel;
  return s;
}

double predicted_seconds(const PhaseScaling& s, double one_thread_seconds, int threads) {
  const double n = std::max(1, threads);
  double work = 0, time = 0;
  for (int k = 0; k < kPhases; ++k) {
    work += s.work[k];
    time += s.work[k] * ((1 - s.parallel[k]) + s.parallel[k] / n);
  }
  if (!(work > 0)) return predicted_seconds(default_scaling(BuildKind::Units), one_thread_seconds, threads);
  return one_thread_seconds * time / work;
}

PhaseProfile notes_profile(const PhaseNotes& notes, BuildKind kind) {
  std::map<int, int> seen;  // threads -> profiles
  for (const auto& [name, note] : notes) {
    auto m = Material::parse(name);
    if (m && build_kind(*m) == kind && note.profile.threads > 0) ++seen[note.profile.threads];
  }
  if (seen.empty()) return {};
  const int threads =
      std::max_element(seen.begin(), seen.end(), [](const auto& a, const auto& b) { return a.second < b.second; })->first;
  PhaseProfile sum;
  for (const auto& [name, note] : notes) {
    auto m = Material::parse(name);
    if (m && build_kind(*m) == kind && note.profile.threads == threads) sum.add(note.profile);
  }
  return sum;
}

}  // namespace damka
