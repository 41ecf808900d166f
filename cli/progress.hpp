// A progress bar with ETA on stderr: redrawn in place on a terminal, one line
// every few seconds otherwise (logs, CI).
#pragma once

#include <chrono>
#include <string>

namespace damka::cli {

class ProgressBar {
 public:
  ProgressBar();
  // label: what is being done; done/total: units of work.
  void update(const std::string& label, double done, double total);
  void finish();  // clears the line on a terminal
  // One line for a whole run: done/total over the run, elapsed since it
  // started, ETA from what is left; `detail` follows (e.g. the table).
  void update_run(double done, double total, double elapsed, const std::string& unit, const std::string& detail);

 private:
  bool tty_;
  std::chrono::steady_clock::time_point start_, last_;
  std::string label_;
  std::chrono::steady_clock::time_point label_start_;
  bool drawn_ = false;
};

std::string human_count(double n);    // 1.2K, 3.4M, 5.6G
std::string human_seconds(double s);  // 12s, 3m05s, 1h02m

}  // namespace damka::cli
