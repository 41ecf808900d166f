// Private to the generator: the one place where a whole table read from a
// file gets the true values of its derived entries (value_oracle.hpp: the
// side to move must capture; a file may hold anything there, table_file.hpp
// kDontCareCode).  load_solved_table and verify's WDL loader call it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "damka/expected.hpp"
#include "damka/material.hpp"
#include "damka/rules.hpp"
#include "damka/value.hpp"

namespace damka {

// codes: the whole `metric` table of `canonical` (slot order, as read from
// its file).  Replaces the entry of every derived position by the oracle's
// value, searching its captures through the `metric` files of the materials
// it converts into (transitively) under `dir`; stored entries are left as
// they are.  Fails naming the first successor file that is missing or
// unreadable.  Returns the number of derived entries.
// Cost: one position_at() and has_capture() per slot, and for each derived
// slot a search over its captures through a 16 MiB block cache per thread.
// Threads: `threads` OpenMP threads (0: the OpenMP default).  The result does
// not depend on them.
Expected<std::uint64_t> resolve_derived(const Rules& rules, const std::filesystem::path& dir, const Material& canonical,
                                        Metric metric, std::vector<std::uint16_t>& codes, int threads = 0);

}  // namespace damka
