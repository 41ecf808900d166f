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
#include <string_view>
#include <vector>

#include "damka/env.hpp"
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

// Whether a table file's name agrees with what its header holds: empty when
// the name is "<material>.<metric>" of the header's material and metric,
// else "<path>: holds the 2Kv1K dtc table, not the 2Kv1K dtw table its name
// says" (or that the name is no table's).  Cost: none (no I/O).  Thread-safe.
std::string table_name_problem(const std::filesystem::path& path, const Material& material, Metric metric);

// write_table's temporary files, "<material>.<metric>.tmp.<pid>.<n>" beside
// the table (FORMAT.md section 5), and the generator's level files of large
// materials, "<material>.levels.tmp.<pid>.<n>", and of finished tables
// dropped from memory, "<material>.codes.tmp.<pid>.<n>" (<n>: a random number, the
// files created O_EXCL|O_NOFOLLOW: safe_file.hpp); one is left behind only when a writer is
// killed between creating it and renaming it.  The writer's pid when
// `filename` (a name, not a path) has that pattern, else -1.
long temp_table_file_pid(std::string_view filename);
// The files of that pattern directly in `family_dir`, sorted (none when the
// directory cannot be read).  Cost: one directory listing, through `env`.
std::vector<std::filesystem::path> temp_table_files(const std::filesystem::path& family_dir, Env& env = default_env());

}  // namespace damka
