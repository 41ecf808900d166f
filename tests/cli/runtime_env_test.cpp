// The environment the damka executable gives itself (cli/runtime_env.hpp):
// each runtime setting added only where the user set none of its variables.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "runtime_env.hpp"

namespace damka::cli {
namespace {

std::vector<EnvSetting> added(const std::map<std::string, std::string>& env) {
  return runtime_env([&](const char* name) -> const char* {
    const auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  });
}

TEST(RuntimeEnv, AnEmptyEnvironmentGetsBothSettings) {
  const std::vector<EnvSetting> want = {{"OMP_WAIT_POLICY", "passive"}, {"GLIBC_TUNABLES", kMallocTunables}};
  EXPECT_EQ(added({}), want);
  EXPECT_EQ(added({{"PATH", "/bin"}}), want);
}

TEST(RuntimeEnv, TheUsersOwnSettingsAreKept) {
  const std::vector<EnvSetting> malloc_only = {{"GLIBC_TUNABLES", kMallocTunables}};
  EXPECT_EQ(added({{"OMP_WAIT_POLICY", "active"}}), malloc_only);
  EXPECT_EQ(added({{"GOMP_SPINCOUNT", "0"}}), malloc_only);
  const std::vector<EnvSetting> omp_only = {{"OMP_WAIT_POLICY", "passive"}};
  EXPECT_EQ(added({{"GLIBC_TUNABLES", "glibc.malloc.arena_max=1"}}), omp_only);
  // Set, even to nothing: the user's choice.
  EXPECT_EQ(added({{"GLIBC_TUNABLES", ""}}), omp_only);
  // Everything set: nothing to add, so the process does not start itself again.
  EXPECT_TRUE(added({{"OMP_WAIT_POLICY", "passive"}, {"GLIBC_TUNABLES", ""}}).empty());
}

TEST(RuntimeEnv, TheMallocSettingsAreGlibcTunables) {
  // Colon-separated name=value pairs, each a glibc.malloc tunable.
  std::string rest(kMallocTunables);
  int n = 0;
  while (!rest.empty()) {
    const std::string item = rest.substr(0, rest.find(':'));
    rest = item.size() < rest.size() ? rest.substr(item.size() + 1) : "";
    EXPECT_EQ(item.rfind("glibc.malloc.", 0), 0u) << item;
    EXPECT_NE(item.find('='), std::string::npos) << item;
    ++n;
  }
  EXPECT_EQ(n, 3);
}

}  // namespace
}  // namespace damka::cli
