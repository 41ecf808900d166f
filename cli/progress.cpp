#include "progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace damka::cli {

ProgressBar::ProgressBar()
    : tty_(isatty(STDERR_FILENO) != 0), start_(std::chrono::steady_clock::now()), last_(start_) {}

std::string human_count(double n) {
  const char* units[] = {"", "K", "M", "G", "T"};
  int u = 0;
  while (n >= 1000 && u < 4) {
    n /= 1000;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f%s" : "%.1f%s", n, units[u]);
  return buf;
}

std::string human_seconds(double s) {
  char buf[32];
  const long t = std::lround(s);
  if (t < 60)
    std::snprintf(buf, sizeof buf, "%lds", t);
  else if (t < 3600)
    std::snprintf(buf, sizeof buf, "%ldm%02lds", t / 60, t % 60);
  else
    std::snprintf(buf, sizeof buf, "%ldh%02ldm", t / 3600, (t % 3600) / 60);
  return buf;
}

void ProgressBar::update(const std::string& label, double done, double total) {
  const auto now = std::chrono::steady_clock::now();
  if (label != label_) {
    label_ = label;
    label_start_ = now;
  }
  const double since_draw = std::chrono::duration<double>(now - last_).count();
  if (tty_ ? since_draw < 0.1 && done < total : since_draw < 5.0) return;
  last_ = now;
  const double frac = total > 0 ? done / total : 1.0;
  const double elapsed = std::chrono::duration<double>(now - label_start_).count();
  const std::string eta = frac > 0 && frac < 1 ? human_seconds(elapsed * (1 - frac) / frac) : "-";
  const int width = 24;
  const int filled = static_cast<int>(frac * width);
  std::string bar(static_cast<std::size_t>(filled), '#');
  bar.append(static_cast<std::size_t>(width - filled), '-');
  std::fprintf(stderr, "%s%s [%s] %3.0f%% %s/%s ETA %s%s", tty_ ? "\r\033[K" : "", label.c_str(), bar.c_str(),
               100 * frac, human_count(done).c_str(), human_count(total).c_str(), eta.c_str(), tty_ ? "" : "\n");
  std::fflush(stderr);
  drawn_ = true;
}

void RunClock::note(double elapsed, bool waiting) {
  if (waiting_ && elapsed > last_) waited_ += elapsed - last_;
  last_ = std::max(last_, elapsed);
  waiting_ = waiting;
}

double RunClock::eta(double done, double total, double elapsed) const {
  const double worked = elapsed - waited_;
  if (done <= 0 || done >= total || worked <= 1) return -1;
  return (total - done) * worked / done;
}

void ProgressBar::update_run(double done, double total, double elapsed, const std::string& unit,
                             const std::string& detail, bool waiting) {
  run_.note(elapsed, waiting);
  const auto now = std::chrono::steady_clock::now();
  const double since_draw = std::chrono::duration<double>(now - last_).count();
  if (tty_ ? since_draw < 0.2 && done < total : since_draw < 10.0) return;
  last_ = now;
  const double frac = total > 0 ? std::min(1.0, done / total) : 1.0;
  const double left = frac > 0.001 ? run_.eta(done, total, elapsed) : -1;
  const std::string eta = left >= 0 ? human_seconds(left) : "-";
  const int width = 20;
  const int filled = static_cast<int>(frac * width);
  std::string bar(static_cast<std::size_t>(filled), '#');
  bar.append(static_cast<std::size_t>(width - filled), '-');
  std::fprintf(stderr, "%s[%s] %5.1f%% %s/%s %s, %s elapsed, ETA %s  %s%s", tty_ ? "\r\033[K" : "", bar.c_str(),
               100 * frac, human_count(done).c_str(), human_count(total).c_str(), unit.c_str(),
               human_seconds(elapsed).c_str(), eta.c_str(), detail.c_str(), tty_ ? "" : "\n");
  std::fflush(stderr);
  drawn_ = true;
}

void ProgressBar::finish() {
  if (tty_ && drawn_) std::fprintf(stderr, "\r\033[K");
  drawn_ = false;
}

}  // namespace damka::cli
