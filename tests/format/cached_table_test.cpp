// One way to read a table (open_table.hpp, cached_table.hpp): a missing file
// is NotFound, another table under the name is Corrupt naming both, and the
// cached codes are the file's whatever the cache's size and thread count.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <thread>
#include <vector>

#include "damka/cached_table.hpp"
#include "damka/open_table.hpp"
#include "damka/table_file.hpp"
#include "temp_dir.hpp"

namespace damka {
namespace {

namespace fs = std::filesystem;

const Rules& russian() { return rules_of(Variant::Russian); }

// A test's own temporary folder (temp_dir.hpp).
struct Dir : testing::TempDir {
  Dir() : TempDir("cached_table") {}
};

std::vector<std::uint16_t> codes_for(const TableHeader& h) {
  std::vector<std::uint16_t> c(h.slots);
  for (std::size_t i = 0; i < c.size(); ++i)
    c[i] = h.metric == Metric::WDL ? static_cast<std::uint16_t>((i / 7) % 3) : static_cast<std::uint16_t>((i * 31) % 700);
  return c;
}

fs::path write(const Dir& d, const Rules& rules, const char* material, Metric metric, const char* name) {
  TableHeader h = default_table_header(rules, *Material::parse(material), metric);
  if (metric != Metric::WDL) h.block_size = 1000;  // not a power of two: the division path
  const fs::path p = d.path / name;
  EXPECT_TRUE(write_table(p, h, codes_for(h)).ok());
  return p;
}

TEST(OpenTable, MissingForeignAndMisnamedFilesAreToldApart) {
  Dir d;
  const Material m = *Material::parse("2Kv1K");
  const auto missing = open_table(d.path / "2Kv1K.wdl", russian(), m, Metric::WDL);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.code(), ErrorCode::NotFound);

  const fs::path good = write(d, russian(), "2Kv1K", Metric::WDL, "2Kv1K.wdl");
  EXPECT_TRUE(open_table(good, russian(), m, Metric::WDL).ok());

  const fs::path foreign = write(d, rules_of(Variant::English), "2Kv1K", Metric::WDL, "foreign.wdl");
  auto r = open_table(foreign, russian(), m, Metric::WDL);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.code(), ErrorCode::Corrupt);
  EXPECT_NE(r.message().find("built for english rules, expected russian"), std::string::npos) << r.message();

  r = open_table(good, russian(), m, Metric::DTW);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.code(), ErrorCode::Corrupt);
  EXPECT_NE(r.message().find("holds the 2Kv1K wdl table, not the 2Kv1K dtw table"), std::string::npos) << r.message();
  r = open_table(good, russian(), *Material::parse("3Kv1K"), Metric::WDL);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.code(), ErrorCode::Corrupt);
  EXPECT_NE(r.message().find("not the 3Kv1K wdl table"), std::string::npos) << r.message();
}

TEST(CachedTable, CodesAreTheFilesWhateverTheCacheAndThreads) {
  Dir d;
  for (Metric metric : {Metric::WDL, Metric::DTW}) {
    const fs::path p = write(d, russian(), "2K1Mv1K", metric, metric == Metric::WDL ? "2K1Mv1K.wdl" : "2K1Mv1K.dtw");
    auto plain = TableReader::open(p);
    ASSERT_TRUE(plain.ok()) << plain.message();
    const std::uint64_t slots = (*plain)->header().slots;
    std::vector<std::uint16_t> want(slots);
    for (std::uint64_t s = 0; s < slots; ++s) want[s] = *(*plain)->get(s);
    for (std::size_t capacity : {std::size_t{0}, std::size_t{1} << 14, std::size_t{64} << 20}) {
      SCOPED_TRACE(std::string(metric_name(metric)) + " cache " + std::to_string(capacity));
      TableCache cache(capacity);
      auto t = CachedTable::open(p, russian(), *Material::parse("2K1Mv1K"), metric, cache);
      ASSERT_TRUE(t.ok()) << t.message();
      std::uint16_t code = 0;
      EXPECT_FALSE((*t)->cached_code(0, &code));
      ASSERT_TRUE((*t)->code(0, &code).ok());
      EXPECT_EQ(code, want[0]);
      EXPECT_EQ((*t)->cached_code(0, &code), capacity > 0);
      std::vector<std::thread> threads;
      std::atomic<std::uint64_t> wrong{0};
      for (int k = 0; k < 3; ++k)
        threads.emplace_back([&, k] {
          for (std::uint64_t s = static_cast<std::uint64_t>(k); s < slots; s += 3 + static_cast<std::uint64_t>(k)) {
            std::uint16_t c = 0;
            if (!(*t)->code(s, &c).ok() || c != want[s]) ++wrong;
          }
        });
      for (auto& th : threads) th.join();
      EXPECT_EQ(wrong.load(), 0u);
      const TableCache::Stats st = cache.stats();
      EXPECT_GT(st.reads, 0u);
      if (capacity == (std::size_t{64} << 20)) {
        EXPECT_GT(st.hits, st.misses);
      }
      // Evicted blocks count until they are freed: the cache never held more
      // than its capacity, even for a moment.
      EXPECT_LE(st.bytes, capacity);
      EXPECT_LE(st.peak_bytes, capacity);
      if (capacity == (std::size_t{1} << 14)) {
        EXPECT_GT(st.peak_bytes, capacity / 2);  // it was used, and blocks were evicted
      }
    }
  }
}

}  // namespace
}  // namespace damka
