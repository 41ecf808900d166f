// Private to generate(): a material whose files are present, loaded into
// memory as ResidentTables holds a table (resident_tables.hpp), for the
// materials this run builds that convert into it.
#pragma once

#include <filesystem>
#include <functional>

#include "damka/env.hpp"
#include "damka/expected.hpp"
#include "damka/material.hpp"
#include "damka/rules.hpp"
#include "damka/value.hpp"
#include "resident_tables.hpp"

namespace damka {

// The true `metric` code of every slot of `canonical` (the generator's
// primary metric: DTW, or WDL for a WDL-only run), as FileSuccessors reads
// it: the stored entry (a distance file's draws from the WDL file), or the
// value oracle's search for the side a one-side file leaves out; a capture
// position holds kLazyCode, which the first FileSuccessors reader to read
// it replaces by its true code (resident_tables.hpp).  The searches read
// the successors `resident` holds from memory (may be null) and the others
// from their files under `dir`, through `env`.  Fails naming the first
// file that is missing, damaged or unreadable.  Cost: a position_at(), a
// has_capture() and (no capture) a lookup per slot, on `threads` OpenMP
// threads (the codes do not depend on them); memory: the codes (2 bytes a
// slot) and 16 MiB of block cache a thread.  `progress(done, total)`
// (positions; may be empty) is called on the calling thread now and then.
// `pool` (may be null): where the codes' pages come from and go back to
// when the last holder drops them (huge_pages.hpp; it must outlive them).
Expected<ResidentTables::Codes> load_resident(const Rules& rules, const std::filesystem::path& dir,
                                              const Material& canonical, Metric metric,
                                              const ResidentTables* resident, int threads, Env& env,
                                              const std::function<void(std::uint64_t, std::uint64_t)>& progress = {},
                                              KeptArrays* pool = nullptr);

}  // namespace damka
