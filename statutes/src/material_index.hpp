// Private to damka_statutes: the index of a canonical material, built once
// per thread (MaterialIndex is not free to build).
#pragma once

#include "damka/index.hpp"
#include "damka/material.hpp"

namespace damka {

// Cost: a map look-up (the first call per material and thread builds the
// index).  Thread-safe (one cache per thread).
const MaterialIndex& material_index(const Material& canonical);

}  // namespace damka
