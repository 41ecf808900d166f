// The processes of one `mpirun -np N damka generate` (MPI ranks): what the
// generator needs from them, behind a small interface so that the rest of
// the generator never includes mpi.h and builds without MPI.
//
// Every collective call must be made by every rank, in the same order, from
// the thread that joined (MPI_THREAD_FUNNELED); none is thread-safe.  A
// failing MPI call ends the job (MPI's default error handler): mpirun then
// names the rank.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "damka/expected.hpp"

namespace damka {

class Cluster {
 public:
  virtual ~Cluster() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual const std::string& host() const = 0;  // this rank's machine

  // Collective.  Cost: one message round (latency of the network).
  virtual void barrier() = 0;
  // Collective: `bytes` of `root` replace every other rank's `bytes`.
  virtual void broadcast(std::string& bytes, int root) = 0;
  // Collective: `root` receives every rank's bytes, by rank; the others an
  // empty vector.
  virtual std::vector<std::string> gather(const std::string& bytes, int root) = 0;
  // Collective: how many ranks passed true.
  virtual int count(bool flag) = 0;
  // Collective: bitwise AND of every rank's codes, in place (a level's
  // values where each slot is set by one rank and kDontCareCode elsewhere).
  // Cost: about twice the array's bytes through the network.
  virtual void and_reduce(std::span<std::uint16_t> codes) = 0;
  // Collective: out[r] goes to rank r (out[rank()] is ignored); returns what
  // every other rank sent to this one.  Cost: an exchange of counts, then of
  // the entries (in rounds of at most 2^28 entries a rank).
  virtual std::vector<std::uint64_t> exchange(const std::vector<std::vector<std::uint64_t>>& out) = 0;

  // Point to point.  notify_all() sends `value` to every other rank without
  // waiting; next_notice() blocks until one arrives (from any rank) and
  // returns it.  Notices from one rank arrive in the order sent.
  virtual void notify_all(int value) = 0;
  virtual int next_notice() = 0;

  // Ends every rank of the job (MPI_Abort) after the caller printed why.
  // For the command line only; a library returns errors instead.
  [[noreturn]] virtual void abort(int code) = 0;
};

// Whether this damka was built with MPI.
bool mpi_built();
// Whether this process was started by an MPI launcher (mpirun, srun).
// Cost: a few getenv calls.
bool launched_by_mpi();
// Joins the MPI job this process belongs to (MPI_Init_thread, funneled);
// the returned object finalizes MPI when destroyed, so create it once per
// process.  Fails when damka was built without MPI, or when MPI cannot
// give the thread support it needs.
Expected<std::unique_ptr<Cluster>> join_mpi();

}  // namespace damka
