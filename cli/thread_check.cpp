// check_threads (thread_check.hpp).
#include "thread_check.hpp"

#include <pthread.h>

#include <cstring>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace damka::cli {

Status check_threads(int threads) {
  std::vector<pthread_t> started;
  int err = 0;
  for (int i = 1; i < threads; ++i) {
    pthread_t t;
    err = ::pthread_create(&t, nullptr, [](void*) -> void* { return nullptr; }, nullptr);
    if (err != 0) break;
    started.push_back(t);
  }
  for (pthread_t t : started) ::pthread_join(t, nullptr);
  if (err != 0)
    return Error("cannot start " + std::to_string(threads) + " threads (only " + std::to_string(started.size() + 1) +
                     " could start: " + std::strerror(err) +
                     "); give fewer with -t, or raise the memory limit (ulimit -v): each thread needs its stack",
                 ErrorCode::Io);
#ifdef _OPENMP
  // The runtime keeps this team's threads for the parallel regions to come.
  int team = 0;
#pragma omp parallel num_threads(threads)
  {
#pragma omp atomic
    ++team;
  }
  (void)team;
#endif
  return {};
}

}  // namespace damka::cli
