// The Tablebase reads its files through TablebaseOptions::env: an Env
// that fails opens makes a probe an IoError that passes, like running out
// of file descriptors (probe_faults_test.cpp), deterministically.
#include <gtest/gtest.h>

#include <cerrno>

#include "damka/material_stats.hpp"
#include "damka/notation.hpp"
#include "damka/probe.hpp"
#include "fault_env.hpp"
#include "probe/probe_fixtures.hpp"

namespace damka::probe_test {
namespace {

const Rules& russian() { return rules_of(Variant::Russian); }

TEST(ProbeEnv, FilesAreOpenedThroughTheTablebasesEnv) {
  const auto dir = copy_tables(tables(Variant::Russian, 3), russian(), "env");
  testing::FaultEnv env(testing::FaultPlan{});
  TablebaseOptions opt;
  opt.env = &env;
  std::vector<std::string> reported;
  opt.on_error = [&](const std::string& m) { reported.push_back(m); };
  auto tb = Tablebase::open(russian(), dir, opt);
  ASSERT_TRUE(tb.ok()) << tb.message();
  EXPECT_EQ(&(*tb)->env(), &env);
  auto p = parse_fen(russian(), "W:WKa1,Kc1:BKh8");  // 2Kv1K, no capture: needs its file
  ASSERT_TRUE(p.ok()) << p.message();
  testing::FaultPlan eio;
  eio.open_errno = EIO;
  env.set_plan(eio);
  ProbeResult r = (*tb)->probe(*p, Metric::DTW);
  EXPECT_EQ(r.status, ProbeStatus::IoError);
  EXPECT_NE(Tablebase::thread_last_problem().find("Input/output error"), std::string::npos)
      << Tablebase::thread_last_problem();
  EXPECT_EQ((*tb)->table_state(mat("2Kv1K"), Metric::DTW), TableState::Unreadable);
  env.set_plan(testing::FaultPlan{});
  r = (*tb)->probe(*p, Metric::DTW);
  ASSERT_TRUE(r.ok()) << probe_status_name(r.status);
  auto plain = Tablebase::open(russian(), dir);
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(r.value, (*plain)->probe(*p, Metric::DTW).value);
  EXPECT_EQ((*tb)->table_state(mat("2Kv1K"), Metric::DTW), TableState::Present);
  EXPECT_TRUE((*tb)->errors().empty());  // nothing was marked damaged
  ASSERT_FALSE(reported.empty());
}

// A folder whose table files cannot be read is an I/O error naming the
// file, not a Tablebase with no tables ("no tables" was the old answer).
TEST(ProbeEnv, OpenWithUnreadableTablesIsAnIoErrorNamingTheFile) {
  const auto dir = copy_tables(tables(Variant::Russian, 3), russian(), "env_eio_open");
  testing::FaultPlan eio;
  eio.read_errno = EIO;
  testing::FaultEnv env(eio);
  TablebaseOptions opt;
  opt.env = &env;
  auto tb = Tablebase::open(russian(), dir, opt);
  ASSERT_FALSE(tb.ok());
  EXPECT_EQ(tb.code(), ErrorCode::Io) << tb.message();
  EXPECT_NE(tb.message().find("Input/output error"), std::string::npos) << tb.message();
  EXPECT_NE(tb.message().find((dir / "russian").string() + "/"), std::string::npos) << tb.message();
  // A family folder that cannot be stat'ed: the same.
  testing::FaultPlan unstatable;
  unstatable.stat_errno = EIO;
  env.set_plan(unstatable);
  EXPECT_EQ(Tablebase::open(russian(), dir, opt).code(), ErrorCode::Io);
  env.set_plan(testing::FaultPlan{});
  auto fine = Tablebase::open(russian(), dir, opt);
  ASSERT_TRUE(fine.ok()) << fine.message();
  EXPECT_EQ((*fine)->max_pieces(), 3);
}

// materials_with_tables lists the family folder through the Tablebase's Env.
TEST(ProbeEnv, MaterialsWithTablesListsThroughTheEnv) {
  const auto dir = copy_tables(tables(Variant::Russian, 3), russian(), "env_list");
  testing::FaultEnv env(testing::FaultPlan{});
  TablebaseOptions opt;
  opt.env = &env;
  auto tb = Tablebase::open(russian(), dir, opt);
  ASSERT_TRUE(tb.ok()) << tb.message();
  auto listed = materials_with_tables(**tb);
  ASSERT_TRUE(listed.ok()) << listed.message();
  EXPECT_FALSE(listed->empty());
  testing::FaultPlan eio;
  eio.list_errno = EIO;
  env.set_plan(eio);
  auto failed = materials_with_tables(**tb);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.code(), ErrorCode::Io);
  EXPECT_NE(failed.message().find((dir / "russian").string() + ": cannot list: Input/output error"),
            std::string::npos)
      << failed.message();
}

}  // namespace
}  // namespace damka::probe_test
