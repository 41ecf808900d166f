// One way to open a table file for reading: the file a material's metric
// is stored in, opened through an Env (TableReader::open: magic, version,
// checksums of header and index, size) and its header checked against what
// the caller expects of it: these rules (fingerprint), this material and
// this metric.  The probe (Tablebase, MaterialReader), the generator's
// successor files, its check of finished files and load_solved_table open
// their tables here, so "missing", "unreadable" and "not the table its name
// says" mean the same everywhere.
#pragma once

#include <filesystem>
#include <memory>

#include "damka/env.hpp"
#include "damka/expected.hpp"
#include "damka/material.hpp"
#include "damka/rules.hpp"
#include "damka/table_file.hpp"

namespace damka {

// Whether header `h` of `file` is the `metric` table of `canonical` for
// `rules`.  Corrupt naming the file: built for other rules
// (foreign_table_message), or "holds the <m> <metric> table, not the <m>
// <metric> table its name says".  Cost: none (no I/O).  Thread-safe.
Status check_table_identity(const TableHeader& h, const Rules& rules, const Material& canonical, Metric metric,
                            const std::filesystem::path& file);

// Opens `path` through `env` (which must outlive the reader) and checks it
// is the `metric` table of `canonical` for `rules`.  Errors: NotFound (no
// such file), Io (the system failed; may pass), Corrupt (damaged, not a
// damka table, or another table: check_table_identity).  Cost: as
// TableReader::open.  Thread-safe.
Expected<std::unique_ptr<TableReader>> open_table(const std::filesystem::path& path, const Rules& rules,
                                                  const Material& canonical, Metric metric,
                                                  FileAccess access = FileAccess::Pread, Env& env = default_env());

}  // namespace damka
