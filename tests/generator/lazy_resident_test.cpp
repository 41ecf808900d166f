// Present tables loaded into memory (load_resident.hpp) hold kLazyCode at
// exactly their capture positions; a FileSuccessors reader resolves each
// one it reads to the true code, as reading the files through the oracle
// gives it, and writes it in place.  A search that reaches a loaded
// table's capture position not read yet searches on over its captures
// (FileReader::known, file_successors.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "damka/generate.hpp"
#include "damka/movegen.hpp"
#include "damka/slots.hpp"
#include "file_successors.hpp"
#include "generator/generate_helpers.hpp"
#include "load_resident.hpp"
#include "resident_tables.hpp"
#include "temp_dir.hpp"

namespace damka {
namespace {

using damka::testing::TempDir;

TEST(LazyResident, CapturePositionsAreResolvedWhenFirstRead) {
  for (Variant v : {Variant::Russian, Variant::English}) {
    const Rules& r = rules_of(v);
    SCOPED_TRACE(r.name);
    TempDir dir;
    ASSERT_TRUE(generate(r, test::options(dir.path, 4, 2)).ok());
    // A 4-piece material with men, and everything it converts into, loaded
    // in build order (each load reads the ones before it from memory).
    const Material top = *Material::parse("2K1Mv1K");
    const std::vector<Material> order = build_order(4);
    ResidentTables rt(order, std::vector<bool>(order.size(), false));
    std::vector<Material> loaded = successors_closure(top);
    loaded.push_back(top);
    std::sort(loaded.begin(), loaded.end(), build_before);
    std::uint64_t lazy_top = 0;
    for (const Material& m : loaded) {
      auto codes = load_resident(r, dir.path, m, Metric::DTW, &rt, 2, default_env());
      ASSERT_TRUE(codes.ok()) << m.name() << ": " << codes.message();
      // kLazyCode exactly where the side to move must capture.
      const MaterialIndex index(m);
      SlotCursor slots(index);
      for (std::uint64_t s = 0; s < (*codes)->size(); ++s) {
        const bool capture = has_capture(r, slots.at(s));
        ASSERT_EQ((**codes)[s] == kLazyCode, capture) << m.name() << " slot " << s;
        if (m == top) lazy_top += capture;
      }
      const auto at = std::find(order.begin(), order.end(), m) - order.begin();
      rt.add(static_cast<std::size_t>(at), *codes);
    }
    ASSERT_GT(lazy_top, 0u);  // the reads below resolve some

    // Every position of `top` read from memory, against the same read from
    // the files alone.
    auto in_memory = FileSuccessors::open(r, dir.path, {top}, Metric::DTW, 1 << 20, 1, &rt);
    auto from_files = FileSuccessors::open(r, dir.path, {top}, Metric::DTW, 1 << 20, 1, nullptr);
    ASSERT_TRUE(in_memory.ok()) << in_memory.message();
    ASSERT_TRUE(from_files.ok()) << from_files.message();
    auto a = (*in_memory)->reader();
    auto b = (*from_files)->reader();
    const MaterialIndex index(top);
    SlotCursor slots(index);
    const ResidentTables::Codes& codes = *rt.find(top);
    for (std::uint64_t s = 0; s < codes->size(); ++s) {
      const Position& p = slots.at(s);
      const std::uint16_t want = b->code(p);
      ASSERT_EQ(a->code(p), want) << top.name() << " slot " << s;
      ASSERT_EQ((*codes)[s], want) << "not written in place: slot " << s;
      ASSERT_EQ(a->code(p), want) << "read again: slot " << s;
    }
    EXPECT_TRUE(a->error().empty()) << a->error();
    EXPECT_TRUE(b->error().empty()) << b->error();
    EXPECT_EQ(std::count(codes->begin(), codes->end(), kLazyCode), 0);
  }
}

// load_resident reads a position that is not a capture position by its
// slot (FileSuccessorReader::stored_code), not through the oracle; the codes
// are the oracle's all the same: every slot of every 4-piece material, in
// each metric, from files storing both sides to move and one side only
// (whose other side stored_code leaves to the oracle's search).
TEST(LazyResident, PositionsReadBySlotAreTheOraclesValues) {
  const Rules& r = rules_of(Variant::Russian);
  for (bool one_side : {false, true}) {
    SCOPED_TRACE(one_side ? "one side" : "both sides");
    TempDir dir;
    GenerateOptions o = test::options(dir.path, 4, 2);
    o.one_side = one_side;
    ASSERT_TRUE(generate(r, o).ok());
    std::uint64_t checked = 0;
    for (Metric metric : {Metric::WDL, Metric::DTW, Metric::DTC}) {
      for (const Material& m : build_order(4)) {
        auto codes = load_resident(r, dir.path, m, metric, nullptr, 2, default_env());
        ASSERT_TRUE(codes.ok()) << m.name() << ": " << codes.message();
        auto files = FileSuccessors::open(r, dir.path, {m}, metric, 1 << 20, 1, nullptr);
        ASSERT_TRUE(files.ok()) << files.message();
        auto reader = (*files)->reader();
        const MaterialIndex index(m);
        SlotCursor slots(index);
        for (std::uint64_t s = 0; s < (*codes)->size(); ++s) {
          if ((**codes)[s] == kLazyCode) continue;
          ASSERT_EQ((**codes)[s], reader->code(slots.at(s))) << m.name() << " slot " << s;
          ++checked;
        }
        EXPECT_TRUE(reader->error().empty()) << reader->error();
      }
    }
    EXPECT_GT(checked, 1000000u);
  }
}

}  // namespace
}  // namespace damka
