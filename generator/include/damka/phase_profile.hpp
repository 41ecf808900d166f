// Where a build's time goes, per phase, and how busy its threads were: the
// measurement behind `generate --json`'s "phases" and behind the dry run's
// prediction for another number of threads (issue 26, item 3).
//
// A phase's wall time runs on the building thread; its busy time is the CPU
// time of the whole process over that wall time (every thread's, so at most
// threads x wall on an otherwise idle machine).  threads x wall - busy is
// the thread time spent with fewer threads busy than given: serial code,
// imbalance at the end of parallel loops, waiting on I/O, and, on a machine
// with other work, threads that were ready but not running.  Idle OpenMP
// threads must wait passively (OMP_WAIT_POLICY=passive, which the damka CLI
// sets) for busy to mean work: spinning threads count as busy.  On a
// machine with other work, threads that wait for a core count as idle: a
// profile taken there describes that machine's share, and the dry run's
// prediction from it is as pessimistic (measure on idle cores).
#pragma once

#include <array>
#include <map>
#include <string>
#include <string_view>

#include "damka/material.hpp"
#include "damka/metric_spec.hpp"

namespace damka {

enum class Phase : int {
  Units,  // levels solved with units in parallel, one thread each
  Team,   // levels of few units, each unit solved by a team (kings-only materials: one unit)
  Flush,  // finished levels counted and moved to the store (or spilled to disk)
  Write,  // the store streamed to the table files: encoding, compression, writes
  Other,  // the rest of a material: opening successors, loading present ones into memory, setting up
};
inline constexpr int kPhases = 5;
std::string_view phase_name(Phase p);  // "units", "team", "flush", "write", "other"

struct PhaseTime {
  double wall = 0;  // seconds
  double busy = 0;  // CPU seconds of the process over that time
  double kernel = 0;  // the part of `busy` spent in the kernel (page faults, I/O, madvise)
  double faults = 0;  // the process's page faults over that time (minor and major)
};

struct PhaseProfile {
  int threads = 0;  // threads given (0: nothing measured)
  std::array<PhaseTime, kPhases> phase{};
  // Thread time spent reading successors' blocks from files (part of the
  // units' and team's busy time; 0 when every successor was in memory).
  double reads = 0;

  PhaseTime& operator[](Phase p) { return phase[static_cast<int>(p)]; }
  const PhaseTime& operator[](Phase p) const { return phase[static_cast<int>(p)]; }
  double wall() const;  // summed over phases
  double busy() const;
  PhaseTime total() const;  // every field summed over phases
  // Sums `other` in (threads: the larger of the two).
  void add(const PhaseProfile& other);
};

// The dry run's classes of materials: kings-only ones are built by a team
// of threads, the others unit by unit.
enum class BuildKind : int { Units = 0, KingsOnly = 1 };
inline BuildKind build_kind(const Material& m) { return m.men() == 0 ? BuildKind::KingsOnly : BuildKind::Units; }

// Per phase: the one-thread work (seconds) and the share of it that runs in
// parallel, the model behind predicted_seconds.
struct PhaseScaling {
  std::array<double, kPhases> work{};      // seconds on one thread
  std::array<double, kPhases> parallel{};  // 0..1
};

// The parallel shares a measurement cannot give (a one-thread run), per
// phase (estimates: phase_profile.cpp says why).
extern const std::array<double, kPhases> kDefaultParallel;

// A measured profile as work and parallel shares.  With t = profile.threads
// > 1, a phase of wall time W and busy time B ran serial work s and
// parallel work p with W = s + p / t and B = s + p (so p = (B - W) t /
// (t - 1), clamped to [0, t W]); with one thread, the work is W and the
// shares are kDefaultParallel.  Time not spent on a CPU (I/O) counts as
// serial work.
PhaseScaling scaling_of(const PhaseProfile& profile);
// The built-in scaling of a kind of material (the phases' shares of the
// work and kDefaultParallel), for a folder with no earlier build of it.
PhaseScaling default_scaling(BuildKind kind);
// The time on `threads` threads of a build whose one-thread time is
// `one_thread_seconds`, split among the phases as `s` says (no work in `s`:
// default_scaling(BuildKind::Units)) (Amdahl's law per
// phase: serial work + parallel work / threads).  Ignores memory bandwidth,
// imbalance and other work on the machine: an upper bound of the speed-up.
double predicted_seconds(const PhaseScaling& s, double one_thread_seconds, int threads);


// One earlier build of a material: its profile and the metrics it built
// (a WDL-only build does less work per position: the dry run compares
// like with like, generate_plan.cpp).
struct PhaseNote {
  PhaseProfile profile;
  MetricSet metrics;  // notes written before metrics were kept: the default set
};
// A folder's earlier builds, by canonical material name (what generate()
// keeps in phase_notes_path(), see generate.hpp).
using PhaseNotes = std::map<std::string, PhaseNote>;
// The notes' profiles of one kind summed (threads: every profile of the
// sum must have the same; the most common count wins, others are left out).
PhaseProfile notes_profile(const PhaseNotes& notes, BuildKind kind);

}  // namespace damka
