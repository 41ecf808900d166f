// A progress bar with ETA on stderr: redrawn in place on a terminal, one line
// every few seconds otherwise (logs, CI).
#pragma once

#include <chrono>
#include <string>

namespace damka::cli {

// The ETA of a long run from its progress reports: the rate of the work
// done over the time spent working, that is, leaving out the time the run
// waited (a resumed verify or generate loading tables it reads before it
// goes on: progress not counted in `done`, which would make the ETA of a
// resumed 7-piece verify several times too long).
class RunClock {
 public:
  // Each progress report: `elapsed` seconds since the run started (not
  // decreasing), `waiting` whether the run is now doing work not counted in
  // `done`.  The time from one report to the next counts as waiting when
  // the first said so.
  void note(double elapsed, bool waiting);
  double waited() const { return waited_; }
  // Seconds left at the rate so far, or a negative number when there is no
  // rate yet (nothing done, or no time worked) or nothing is left.
  double eta(double done, double total, double elapsed) const;

 private:
  double last_ = 0, waited_ = 0;
  bool waiting_ = false;
};

class ProgressBar {
 public:
  ProgressBar();
  // label: what is being done; done/total: units of work.
  void update(const std::string& label, double done, double total);
  void finish();  // clears the line on a terminal
  // One line for a whole run: done/total over the run, elapsed since it
  // started, ETA from what is left at the rate so far, leaving out the time
  // spent `waiting` (RunClock); `detail` follows (e.g. the table).
  void update_run(double done, double total, double elapsed, const std::string& unit, const std::string& detail,
                  bool waiting = false);

 private:
  bool tty_;
  std::chrono::steady_clock::time_point start_, last_;
  std::string label_;
  std::chrono::steady_clock::time_point label_start_;
  bool drawn_ = false;
  RunClock run_;
};

std::string human_count(double n);    // 1.2K, 3.4M, 5.6G
std::string human_seconds(double s);  // 12s, 3m05s, 1h02m

}  // namespace damka::cli
