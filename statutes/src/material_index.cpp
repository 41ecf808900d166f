// The per-thread cache of material indexes.
#include "material_index.hpp"

#include <map>
#include <memory>

namespace damka {

const MaterialIndex& material_index(const Material& canonical) {
  thread_local std::map<Material, std::unique_ptr<MaterialIndex>> cache;
  auto& slot = cache[canonical];
  if (!slot) slot = std::make_unique<MaterialIndex>(canonical);
  return *slot;
}

}  // namespace damka
