// The run ETA (cli/progress.hpp RunClock): the rate over the time worked,
// the time spent waiting (loading tables, not counted as done) left out.
#include <gtest/gtest.h>

#include "progress.hpp"

namespace damka::cli {
namespace {

TEST(RunClock, EtaIsTheRateSoFarWhenTheRunNeverWaits) {
  RunClock c;
  for (double t : {2.0, 4.0, 10.0}) c.note(t, false);
  EXPECT_DOUBLE_EQ(c.waited(), 0.0);
  EXPECT_DOUBLE_EQ(c.eta(25, 100, 10), 30.0);  // a quarter in 10 s: 30 s left
}

TEST(RunClock, TimeSpentWaitingIsLeftOutOfTheRate) {
  // A resumed run loads tables for its first 20 s (reports every 5 s say
  // so), then works: the interval after the last waiting report counts
  // as waiting too.
  RunClock c;
  for (double t : {0.0, 5.0, 10.0, 15.0, 20.0}) c.note(t, true);
  EXPECT_DOUBLE_EQ(c.waited(), 20.0);
  c.note(25, false);
  c.note(30, false);
  EXPECT_DOUBLE_EQ(c.waited(), 25.0);
  // 10 of 100 done in the 5 s worked: 45 s left (the whole-run average
  // would say 270 s).
  EXPECT_DOUBLE_EQ(c.eta(10, 100, 30), 45.0);
  // Waiting again later: only the time from a waiting report to the next.
  c.note(40, true);
  c.note(50, false);
  EXPECT_DOUBLE_EQ(c.waited(), 35.0);
  EXPECT_DOUBLE_EQ(c.eta(30, 100, 50), 70.0 * 15.0 / 30.0);
}

TEST(RunClock, NoEtaWithoutARate) {
  RunClock c;
  c.note(5, false);
  EXPECT_LT(c.eta(0, 100, 5), 0);     // nothing done yet
  EXPECT_LT(c.eta(100, 100, 5), 0);   // nothing left
  RunClock w;
  w.note(0, true);
  w.note(5, false);
  EXPECT_LT(w.eta(10, 100, 5.5), 0);  // under a second worked
  // A report whose elapsed time goes back adds nothing.
  RunClock b;
  b.note(10, true);
  b.note(8, false);
  EXPECT_DOUBLE_EQ(b.waited(), 0.0);
  b.note(12, false);
  EXPECT_DOUBLE_EQ(b.eta(50, 100, 12), 12.0);
}

}  // namespace
}  // namespace damka::cli
