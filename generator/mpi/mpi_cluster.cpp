// Cluster (cluster.hpp) on MPI, when damka is built with it (DAMKA_MPI).
#include "damka/cluster.hpp"

#include <cstdlib>

#if DAMKA_MPI
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <thread>
#endif

namespace damka {

bool mpi_built() { return DAMKA_MPI != 0; }

bool launched_by_mpi() {
  // Open MPI's mpirun, PMIx launchers (Open MPI 5, srun --mpi=pmix), MPICH's Hydra.
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"})
    if (std::getenv(v) != nullptr) return true;
  return false;
}

#if DAMKA_MPI
namespace {

constexpr int kNoticeTag = 17;
constexpr std::size_t kMaxCount = std::size_t{1} << 28;  // elements per MPI call (an int count)

// Waits for a request without spinning on a core: ranks often wait long
// (for another rank's material) and share cores with working threads.
void wait_quietly(MPI_Request& req) {
  int done = 0;
  auto nap = std::chrono::microseconds(20);
  for (;;) {
    MPI_Test(&req, &done, MPI_STATUS_IGNORE);
    if (done) return;
    std::this_thread::sleep_for(nap);
    nap = std::min<std::chrono::microseconds>(nap * 2, std::chrono::milliseconds(2));
  }
}

class MpiCluster : public Cluster {
 public:
  MpiCluster() {
    MPI_Comm_dup(MPI_COMM_WORLD, &comm_);
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
    char name[MPI_MAX_PROCESSOR_NAME];
    int len = 0;
    MPI_Get_processor_name(name, &len);
    host_.assign(name, static_cast<std::size_t>(std::max(0, len)));
  }
  ~MpiCluster() override {
    for (auto& s : sent_) MPI_Wait(&s.req, MPI_STATUS_IGNORE);
    MPI_Comm_free(&comm_);
    MPI_Finalize();
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  const std::string& host() const override { return host_; }

  void barrier() override {
    MPI_Request req;
    MPI_Ibarrier(comm_, &req);
    wait_quietly(req);
  }
  void broadcast(std::string& bytes, int root) override {
    unsigned long long n = bytes.size();
    MPI_Bcast(&n, 1, MPI_UNSIGNED_LONG_LONG, root, comm_);
    bytes.resize(n);
    for (std::size_t at = 0; at < n; at += kMaxCount)
      MPI_Bcast(bytes.data() + at, static_cast<int>(std::min<std::size_t>(kMaxCount, n - at)), MPI_CHAR, root, comm_);
  }
  std::vector<std::string> gather(const std::string& bytes, int root) override {
    // Small payloads (reports): one gather of sizes, then each rank's bytes.
    int n = static_cast<int>(bytes.size());
    std::vector<int> sizes(static_cast<std::size_t>(size_)), offsets(static_cast<std::size_t>(size_));
    MPI_Request req;
    MPI_Igather(&n, 1, MPI_INT, sizes.data(), 1, MPI_INT, root, comm_, &req);
    wait_quietly(req);
    std::string all;
    if (rank_ == root) {
      int total = 0;
      for (int r = 0; r < size_; ++r) {
        offsets[static_cast<std::size_t>(r)] = total;
        total += sizes[static_cast<std::size_t>(r)];
      }
      all.resize(static_cast<std::size_t>(total));
    }
    MPI_Igatherv(bytes.data(), n, MPI_CHAR, all.data(), sizes.data(), offsets.data(), MPI_CHAR, root, comm_, &req);
    wait_quietly(req);
    std::vector<std::string> out;
    if (rank_ == root)
      for (int r = 0; r < size_; ++r)
        out.push_back(all.substr(static_cast<std::size_t>(offsets[static_cast<std::size_t>(r)]),
                                 static_cast<std::size_t>(sizes[static_cast<std::size_t>(r)])));
    return out;
  }
  int count(bool flag) override {
    int in = flag ? 1 : 0, out = 0;
    MPI_Request req;
    MPI_Iallreduce(&in, &out, 1, MPI_INT, MPI_SUM, comm_, &req);
    wait_quietly(req);
    return out;
  }
  void and_reduce(std::span<std::uint16_t> codes) override {
    for (std::size_t at = 0; at < codes.size(); at += kMaxCount) {
      MPI_Request req;
      MPI_Iallreduce(MPI_IN_PLACE, codes.data() + at, static_cast<int>(std::min(kMaxCount, codes.size() - at)),
                     MPI_UINT16_T, MPI_BAND, comm_, &req);
      wait_quietly(req);
    }
  }
  std::vector<std::uint64_t> exchange(const std::vector<std::vector<std::uint64_t>>& out) override {
    // Rounds of at most kMaxCount entries per destination (int counts),
    // until no rank has any left.
    const auto n = static_cast<std::size_t>(size_);
    std::vector<std::uint64_t> in;
    std::vector<std::size_t> sent(n, 0);
    for (;;) {
      std::vector<int> send_counts(n, 0), recv_counts(n, 0), send_at(n, 0), recv_at(n, 0);
      std::vector<std::uint64_t> send;
      bool more = false;
      for (std::size_t r = 0; r < n; ++r) {
        if (static_cast<int>(r) == rank_ || r >= out.size()) continue;
        const std::size_t k = std::min(kMaxCount / n, out[r].size() - sent[r]);
        send_at[r] = static_cast<int>(send.size());
        send_counts[r] = static_cast<int>(k);
        send.insert(send.end(), out[r].begin() + static_cast<std::ptrdiff_t>(sent[r]),
                    out[r].begin() + static_cast<std::ptrdiff_t>(sent[r] + k));
        sent[r] += k;
        more = more || sent[r] < out[r].size();
      }
      MPI_Request req;
      MPI_Ialltoall(send_counts.data(), 1, MPI_INT, recv_counts.data(), 1, MPI_INT, comm_, &req);
      wait_quietly(req);
      std::size_t total = 0;
      for (std::size_t r = 0; r < n; ++r) {
        recv_at[r] = static_cast<int>(total);
        total += static_cast<std::size_t>(recv_counts[r]);
      }
      std::vector<std::uint64_t> got(total);
      MPI_Ialltoallv(send.data(), send_counts.data(), send_at.data(), MPI_UINT64_T, got.data(), recv_counts.data(),
                     recv_at.data(), MPI_UINT64_T, comm_, &req);
      wait_quietly(req);
      in.insert(in.end(), got.begin(), got.end());
      if (count(more) == 0) return in;
    }
  }
  void notify_all(int value) override {
    // Forget the sends that completed; keep the buffers of the others.
    while (!sent_.empty()) {
      int done = 0;
      MPI_Test(&sent_.front().req, &done, MPI_STATUS_IGNORE);
      if (!done) break;
      sent_.pop_front();
    }
    for (int r = 0; r < size_; ++r) {
      if (r == rank_) continue;
      sent_.push_back(Sent{value, MPI_REQUEST_NULL});
      MPI_Isend(&sent_.back().value, 1, MPI_INT, r, kNoticeTag, comm_, &sent_.back().req);
    }
  }
  int next_notice() override {
    int value = 0;
    MPI_Request req;
    MPI_Irecv(&value, 1, MPI_INT, MPI_ANY_SOURCE, kNoticeTag, comm_, &req);
    wait_quietly(req);
    return value;
  }
  [[noreturn]] void abort(int code) override {
    MPI_Abort(comm_, code);
    std::abort();
  }

 private:
  struct Sent {
    int value;
    MPI_Request req;
  };
  MPI_Comm comm_;
  int rank_ = 0, size_ = 1;
  std::string host_;
  std::deque<Sent> sent_;  // a deque keeps the buffers in place as it grows
};

}  // namespace

Expected<std::unique_ptr<Cluster>> join_mpi() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized) return Error("MPI is already initialized in this process (join_mpi() once per process)");
  int provided = 0;
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
  if (provided < MPI_THREAD_FUNNELED) {
    MPI_Finalize();
    return Error("the MPI library does not support threads (MPI_THREAD_FUNNELED)");
  }
  return std::unique_ptr<Cluster>(std::make_unique<MpiCluster>());
}
#else
Expected<std::unique_ptr<Cluster>> join_mpi() {
  return Error("this damka was built without MPI (install libopenmpi-dev and rebuild; see README)");
}
#endif

}  // namespace damka
