// Private to the generator: times one phase of a build into a PhaseProfile
// (phase_profile.hpp): wall time, the process's CPU time, its kernel part
// and page faults.
#pragma once

#include <sys/resource.h>
#include <time.h>

#include <chrono>

#include "damka/phase_profile.hpp"

namespace damka::engine_detail {

// A CPU-time clock's reading, seconds.  Cost: one clock_gettime.
inline double cpu_seconds(clockid_t clock) {
  timespec ts{};
  ::clock_gettime(clock, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}
// The process's CPU time (every thread); the calling thread's.
inline double process_cpu_seconds() { return cpu_seconds(CLOCK_PROCESS_CPUTIME_ID); }
inline double thread_cpu_seconds() { return cpu_seconds(CLOCK_THREAD_CPUTIME_ID); }

// The process's CPU time (every thread), the part of it spent in the kernel
// and its page faults, since it started.  Cost: one clock_gettime and one
// getrusage (which walks the process's threads).
struct Usage {
  double cpu = 0, kernel = 0, faults = 0;
  static Usage now() {
    Usage u;
    u.cpu = process_cpu_seconds();
    rusage ru{};
    if (::getrusage(RUSAGE_SELF, &ru) == 0) {
      u.kernel = static_cast<double>(ru.ru_stime.tv_sec) + static_cast<double>(ru.ru_stime.tv_usec) * 1e-6;
      u.faults = static_cast<double>(ru.ru_minflt) + static_cast<double>(ru.ru_majflt);
    }
    return u;
  }
  Usage operator-(const Usage& o) const { return {cpu - o.cpu, kernel - o.kernel, faults - o.faults}; }
};

inline double wall_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Adds the time from construction to destruction (or stop()) to phase `p`
// of `out`.  Use on the building thread, around whole parallel regions.
class PhaseClock {
 public:
  PhaseClock(PhaseProfile& out, Phase p) : out_(out), p_(p), wall_(wall_seconds()), used_(Usage::now()) {}
  PhaseClock(const PhaseClock&) = delete;
  PhaseClock& operator=(const PhaseClock&) = delete;
  ~PhaseClock() { stop(); }
  void stop() {
    if (stopped_) return;
    stopped_ = true;
    const Usage d = Usage::now() - used_;
    PhaseTime& t = out_[p_];
    t.wall += wall_seconds() - wall_;
    t.busy += d.cpu;
    t.kernel += d.kernel;
    t.faults += d.faults;
  }

 private:
  PhaseProfile& out_;
  Phase p_;
  double wall_;
  Usage used_;
  bool stopped_ = false;
};

// Sets the Other phase to what `wall` and `used` (measured over the whole of
// what `p` profiles) leave beside its other phases, its busy time at most
// p.threads x its wall time.  The cap is not a fudge: the
// kernel adds a running thread's CPU time to the process's clock at a
// scheduler tick or a context switch, so each phase's closing reading may
// miss up to a tick per worker, and that time is read at the next reading,
// in the gap that Other is made of.  A small material with many levels
// piles some 20 such lags onto an Other of a few milliseconds (seen on CI:
// 70 ms of CPU in 17.5 ms of wall with 2 threads).
inline void settle_other(PhaseProfile& p, double wall, const Usage& used) {
  double w = wall, b = used.cpu, kt = used.kernel, f = used.faults;
  for (int k = 0; k < kPhases; ++k)
    if (static_cast<Phase>(k) != Phase::Other) {
      w -= p.phase[k].wall;
      b -= p.phase[k].busy;
      kt -= p.phase[k].kernel;
      f -= p.phase[k].faults;
    }
  if (w < 0) w = 0;
  if (b < 0) b = 0;
  const double most = (p.threads > 0 ? p.threads : 1) * w;
  b = b < most ? b : most;
  kt = kt < 0 ? 0 : kt < b ? kt : b;
  p[Phase::Other] = PhaseTime{w, b, kt, f < 0 ? 0 : f};
}

}  // namespace damka::engine_detail
