// Private to generate(): the steps a single process and each rank of
// several (generate_ranks.cpp) share.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "damka/generate.hpp"

namespace damka::generate_detail {

inline constexpr std::uint64_t kCachePerThread = std::uint64_t{16} << 20;  // successor cache per thread

// The materials to build: everything up to max_pieces, or `only` and what it
// needs, in build order.
std::vector<Material> targets(const GenerateOptions& opt);

// Positions per second of an in-memory build on this machine (a short build).
double calibrate(const Rules& rules, int threads);

// r for a material whose files are present: Skipped, with its file sizes.
void fill_present(const Rules& rules, const GenerateOptions& opt, TableReport& r);

// Builds the files of r.material (its successors' files must be finished)
// and fills r; with a split, this process's share (only the writer writes
// files).  Nothing half-written remains on failure.
Status build_table(const Rules& rules, const GenerateOptions& opt, LevelSplit* split,
                   const std::function<void(std::uint64_t, std::uint64_t)>& progress, TableReport& r);

// generate() on several ranks (generate_ranks.cpp).
Expected<std::vector<TableReport>> generate_on_ranks(const Rules& rules, const GenerateOptions& opt,
                                                     const GenerateCallbacks& cb, Cluster& cluster);

}  // namespace damka::generate_detail
