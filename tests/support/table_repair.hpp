// Test and fuzzing aid (not shipped): rewrites a table file's checksums so
// that mutated bytes reach the checks behind them.
#pragma once

#include <vector>

namespace damka::table_layout {

// Recomputes every checksum of a (possibly damaged) table file in memory
// where its fields allow (group sums, index, header, trailer).
void repair_checksums(std::vector<unsigned char>& f);

}  // namespace damka::table_layout
