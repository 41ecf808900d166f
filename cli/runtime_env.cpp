// The damka executable's own environment: see runtime_env.hpp.
#include "runtime_env.hpp"

namespace damka::cli {

std::vector<EnvSetting> runtime_env(const std::function<const char*(const char*)>& get) {
  std::vector<EnvSetting> add;
  if (get("OMP_WAIT_POLICY") == nullptr && get("GOMP_SPINCOUNT") == nullptr)
    add.push_back({"OMP_WAIT_POLICY", "passive"});
  if (get("GLIBC_TUNABLES") == nullptr) add.push_back({"GLIBC_TUNABLES", kMallocTunables});
  return add;
}

}  // namespace damka::cli
