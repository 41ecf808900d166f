// Where tables live on disk:
//
//   <dir>/<family>/<material>.<metric>      e.g. tables/russian/3Kv1K.dtw
//
// <family> is the variant's name, except that variants playing the same game
// share one family (Filipino uses Brazilian's tables: equal fingerprints).
// <material> is the canonical material's name (material.hpp) and <metric> is
// wdl, dtw or dtc.
#pragma once

#include <filesystem>
#include <string>

#include "damka/material.hpp"
#include "damka/rules.hpp"
#include "damka/value.hpp"

namespace damka {

// The family name: the first variant (in all_variants() order) whose rules
// have the same fingerprint.
std::string table_family(const Rules& rules);

std::filesystem::path table_dir(const std::filesystem::path& dir, const Rules& rules);
std::filesystem::path table_path(const std::filesystem::path& dir, const Rules& rules, const Material& canonical,
                                 Metric metric);

}  // namespace damka
