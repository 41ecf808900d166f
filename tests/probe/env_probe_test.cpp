// The Tablebase reads its files through TablebaseOptions::env: an Env
// that fails opens makes a probe an IoError that passes, like running out
// of file descriptors (probe_faults_test.cpp), deterministically.
#include <gtest/gtest.h>

#include <cerrno>

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

}  // namespace
}  // namespace damka::probe_test
