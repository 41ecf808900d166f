// Private to the generator: times one phase of a build into a PhaseProfile
// (phase_profile.hpp): wall time and the process's CPU time.
#pragma once

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

inline double wall_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Adds the time from construction to destruction (or stop()) to phase `p`
// of `out`.  Use on the building thread, around whole parallel regions.
class PhaseClock {
 public:
  PhaseClock(PhaseProfile& out, Phase p) : out_(out), p_(p), wall_(wall_seconds()), cpu_(process_cpu_seconds()) {}
  PhaseClock(const PhaseClock&) = delete;
  PhaseClock& operator=(const PhaseClock&) = delete;
  ~PhaseClock() { stop(); }
  void stop() {
    if (stopped_) return;
    stopped_ = true;
    out_[p_].wall += wall_seconds() - wall_;
    out_[p_].busy += process_cpu_seconds() - cpu_;
  }

 private:
  PhaseProfile& out_;
  Phase p_;
  double wall_, cpu_;
  bool stopped_ = false;
};

// Sets the Other phase to what `wall` and `busy` (seconds, measured over
// the whole of what `p` profiles) leave beside its other phases, its busy
// time at most p.threads x its wall time.  The cap is not a fudge: the
// kernel adds a running thread's CPU time to the process's clock at a
// scheduler tick or a context switch, so each phase's closing reading may
// miss up to a tick per worker, and that time is read at the next reading,
// in the gap that Other is made of.  A small material with many levels
// piles some 20 such lags onto an Other of a few milliseconds (seen on CI:
// 70 ms of CPU in 17.5 ms of wall with 2 threads).
inline void settle_other(PhaseProfile& p, double wall, double busy) {
  double w = wall, b = busy;
  for (int k = 0; k < kPhases; ++k)
    if (static_cast<Phase>(k) != Phase::Other) {
      w -= p.phase[k].wall;
      b -= p.phase[k].busy;
    }
  if (w < 0) w = 0;
  if (b < 0) b = 0;
  const double most = (p.threads > 0 ? p.threads : 1) * w;
  p[Phase::Other] = PhaseTime{w, b < most ? b : most};
}

}  // namespace damka::engine_detail
