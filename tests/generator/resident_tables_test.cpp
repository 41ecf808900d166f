// ResidentTables (generator/src/resident_tables.hpp): which present tables a
// build loads into memory before a material (to_load): the material's
// successors whose files are present (an earlier run's, or built earlier in
// this run and converted into by captures) and not held, smallest first
// within the room given, none larger than the positions still to build that
// read it.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "damka/material.hpp"
#include "damka/slots.hpp"
#include "resident_tables.hpp"

namespace damka {
namespace {

std::size_t index_of(const std::vector<Material>& order, const Material& m) {
  return static_cast<std::size_t>(std::find(order.begin(), order.end(), m) - order.begin());
}

TEST(ResidentTables, LoadsPresentSuccessorsSmallestFirstWithinTheRoom) {
  const std::vector<Material> order = build_order(4);
  std::vector<bool> build(order.size());
  for (std::size_t j = 0; j < order.size(); ++j) build[j] = order[j].pieces() == 4;  // 2 and 3 pieces present
  ResidentTables rt(order, build);
  const std::size_t i = index_of(order, *Material::parse("2K1Mv1K"));
  ASSERT_LT(i, order.size());
  const std::vector<std::size_t> all = rt.to_load(i, ~std::uint64_t{0});
  // Every present successor (not the 4-piece one it promotes into, built
  // by this run): a 4-piece material's successors are far smaller than
  // what reads them.
  std::vector<Material> want;
  for (const Material& s : successors(order[i]))
    if (!build[index_of(order, s)]) want.push_back(s);
  ASSERT_EQ(all.size(), want.size());
  for (std::size_t k = 0; k < all.size(); ++k) {
    EXPECT_FALSE(build[all[k]]);
    EXPECT_NE(std::find(want.begin(), want.end(), order[all[k]]), want.end()) << order[all[k]].name();
    if (k > 0) {
      EXPECT_LE(rt.bytes_of(all[k - 1]), rt.bytes_of(all[k]));
    }
  }
  // Room for the smallest alone.
  const std::vector<std::size_t> one = rt.to_load(i, rt.bytes_of(all[0]));
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0], all[0]);
  EXPECT_TRUE(rt.to_load(i, rt.bytes_of(all[0]) - 1).empty());
  // A table held is not loaded again.
  rt.add(all[0], nullptr);
  EXPECT_TRUE(rt.holds(order[all[0]]));
  const std::vector<std::size_t> rest = rt.to_load(i, ~std::uint64_t{0});
  EXPECT_EQ(rest.size(), all.size() - 1);
  EXPECT_EQ(std::count(rest.begin(), rest.end(), all[0]), 0);
}

// A table this run built before and does not hold (make_room dropped it,
// or it was not kept) has its files there: it is loaded like an earlier
// run's where the material converts into it by captures (fewer pieces),
// not where it promotes into it (as many pieces).
TEST(ResidentTables, TablesThisRunBuiltEarlierAreLoadedAgainForCaptures) {
  const std::vector<Material> order = build_order(4);
  const std::vector<bool> build(order.size(), true);  // from an empty folder
  const std::size_t i = index_of(order, *Material::parse("2K1Mv1K"));
  const std::size_t promoted = index_of(order, *Material::parse("3Kv1K"));  // 2K1Mv1K's promotion
  const std::size_t captured = index_of(order, *Material::parse("1K1Mv1K"));  // a capture of a king
  ASSERT_LT(i, order.size());
  ASSERT_LT(promoted, i);  // built first
  ASSERT_LT(captured, i);
  ResidentTables rt(order, build);
  const std::vector<std::size_t> loads = rt.to_load(i, ~std::uint64_t{0});
  std::vector<std::size_t> want;
  for (const Material& s : successors(order[i]))
    if (s.pieces() < order[i].pieces()) want.push_back(index_of(order, s));
  std::sort(want.begin(), want.end());
  std::vector<std::size_t> got = loads;
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, want);
  EXPECT_EQ(std::count(loads.begin(), loads.end(), captured), 1);
  EXPECT_EQ(std::count(loads.begin(), loads.end(), promoted), 0);
  // Held (kept when it was built): not loaded again.
  rt.add(captured, nullptr);
  const std::vector<std::size_t> rest = rt.to_load(i, ~std::uint64_t{0});
  EXPECT_EQ(std::count(rest.begin(), rest.end(), captured), 0);
  EXPECT_EQ(rest.size(), loads.size() - 1);
  // Dropped (make_room with no room drops every table): offered again.
  rt.make_room(i, 1, 0);
  EXPECT_FALSE(rt.holds(order[captured]));
  const std::vector<std::size_t> again = rt.to_load(i, ~std::uint64_t{0});
  EXPECT_EQ(std::count(again.begin(), again.end(), captured), 1);
  // What makes an offered table's files be there: every material comes
  // after its successors in the build order.
  for (std::size_t j = 0; j < order.size(); ++j)
    for (const Material& s : successors(order[j]))
      EXPECT_LT(index_of(order, s), j) << order[j].name() << " is built before its successor " << s.name();
}

TEST(ResidentTables, APresentTableLargerThanItsReadersIsNotLoaded) {
  // A material whose present successor is larger than it, and the only
  // material to build: loading would cost more than reading the file.
  const std::vector<Material> order = build_order(4);
  for (std::size_t i = 0; i < order.size(); ++i)
    for (const Material& s : successors(order[i])) {
      if (table_slots(s) <= table_slots(order[i])) continue;
      std::vector<bool> build(order.size(), false);
      build[i] = true;
      ResidentTables rt(order, build);
      const std::vector<std::size_t> loads = rt.to_load(i, ~std::uint64_t{0});
      EXPECT_EQ(std::count(loads.begin(), loads.end(), index_of(order, s)), 0)
          << order[i].name() << " would load " << s.name();
      // Once enough positions still to build read it, it is.
      std::vector<bool> more(order.size(), false);
      std::uint64_t readers = 0;
      for (std::size_t j = i; j < order.size(); ++j) {
        const std::vector<Material> sj = successors(order[j]);
        if (std::find(sj.begin(), sj.end(), s) == sj.end()) continue;
        more[j] = true;
        readers += table_slots(order[j]);
      }
      ASSERT_GE(readers, table_slots(s)) << s.name();  // true of the first such pair up to 4 pieces
      ResidentTables rt2(order, more);
      const std::vector<std::size_t> l2 = rt2.to_load(i, ~std::uint64_t{0});
      EXPECT_EQ(std::count(l2.begin(), l2.end(), index_of(order, s)), 1) << order[i].name() << " " << s.name();
      return;
    }
  FAIL() << "no material up to 4 pieces converts into a larger one";
}

}  // namespace
}  // namespace damka
