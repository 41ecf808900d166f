// UnitPace (generator/src/unit_pace.hpp): a thread without a move graph
// takes a unit while it would end no later than the threads with one could
// (each half a unit from free, then the units left, as many at a time as
// they are), and always until both kinds have solved a unit; by the
// level's times once it has both kinds', by the material's until then.
#include "unit_pace.hpp"

#include <gtest/gtest.h>

namespace damka::engine_detail {
namespace {

TEST(UnitPace, TakesUntilBothKindsHaveSolvedAUnit) {
  UnitPace pace;
  EXPECT_TRUE(pace.take(1, 1));
  pace.add(true, 1.0, 1);
  EXPECT_TRUE(pace.take(1, 1)) << "no unit solved without a graph yet";
  EXPECT_FALSE(pace.take(0, 1)) << "no unit left";
}

TEST(UnitPace, LeavesTheLastUnitWhereAGraphSolvesItSooner) {
  UnitPace slow;  // without a graph: 1.8 times as long
  slow.add(true, 2.0, 2);
  slow.add(false, 3.6, 2);
  EXPECT_FALSE(slow.take(1, 1));  // 1.8 > 1 + 0.5
  EXPECT_TRUE(slow.take(2, 1));   // 1.8 < 2 + 0.5
  EXPECT_FALSE(slow.take(2, 2));  // two graph threads solve both in one round
  EXPECT_TRUE(slow.take(3, 2));
  UnitPace close;  // 1.2 times as long
  close.add(true, 1.0, 1);
  close.add(false, 1.2, 1);
  EXPECT_TRUE(close.take(1, 1));
  EXPECT_TRUE(close.take(1, 3));
}

TEST(UnitPace, AveragesEveryUnitOfAKind) {
  UnitPace pace;
  pace.add(true, 1.0, 1);
  pace.add(false, 1.0, 1);  // 1.0 a unit without a graph ...
  EXPECT_TRUE(pace.take(1, 1));
  pace.add(false, 5.0, 1);  // ... then 3.0 on average
  EXPECT_FALSE(pace.take(1, 1));
  EXPECT_TRUE(pace.take(3, 1));  // 3.0 < 3 + 0.5
}

TEST(UnitPace, JudgesByTheLevelOnceItHasBothKinds) {
  UnitPace pace;
  pace.add(true, 1.0, 1);
  pace.add(false, 1.2, 1);  // 1.2 times as long in the first level
  pace.next_level();
  EXPECT_TRUE(pace.take(1, 1)) << "no unit solved in this level: the material's 1.2";
  pace.add(true, 1.0, 1);
  EXPECT_TRUE(pace.take(1, 1)) << "one kind only in this level: the material's and the level's, 1.2 against 2.0 / 2";
  pace.add(false, 2.0, 1);  // 2 times as long here
  EXPECT_FALSE(pace.take(1, 1));
  pace.next_level();
  pace.add(true, 1.0, 1);
  pace.add(false, 5.0, 1);  // earlier levels: 4.2 / 3
  EXPECT_FALSE(pace.take(3, 1)) << "this level's 5.0, not the material's";
}

}  // namespace
}  // namespace damka::engine_detail
