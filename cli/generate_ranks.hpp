// `damka generate` on several ranks (mpirun): joining the job, and the dry
// run's plan per rank.  Kept apart so cmd_generate.cpp stays about one run.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common.hpp"
#include "damka/cluster.hpp"
#include "damka/generate.hpp"

namespace damka::cli {

// The MPI job this process is a rank of, when it was started by mpirun (or
// another MPI launcher); null otherwise, and for a job of one rank built
// without MPI.  An error when the job has several ranks and damka was built
// without MPI (each would build everything), or MPI cannot start.
Expected<std::unique_ptr<Cluster>> join_launcher_job();

// "rank 2 of 4 on host: " (the prefix of a rank's messages), or "" without a job.
std::string rank_prefix(const Cluster* cluster);

// The dry run's plan per rank (after the table of materials): its
// materials, the splits it shares, its peak memory and predicted busy time,
// and when the whole job ends.  Text on stdout, or the "ranks" array of `j`.
void show_rank_plan(const std::vector<TableReport>& plan, int ranks, bool json, Json& j);

}  // namespace damka::cli
