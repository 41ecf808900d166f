// damka serve: the run (serve_command.hpp).
#include <atomic>
#include <csignal>
#include <pthread.h>
#include <thread>

#include "serve_command.hpp"

namespace damka::cli {

int run_serve(const ServeOptions& so, const ServePrinter& printer, const Report& report) {
  // SIGINT and SIGTERM stop the server from a thread of their own (no work
  // in a signal handler); blocked before any server thread starts.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  auto server = Server::create(so);
  if (!server) return report.fail(1, server.message());
  if (Status s = (*server)->bind(); !s) return report.fail(1, s.message());
  Server& srv = **server;
  std::atomic<bool> signalled{false}, done{false};
  std::thread waiter([&srv, &signalled, &done, signals] {
    int sig = 0;
    sigwait(&signals, &sig);
    if (done) return;
    signalled = true;
    srv.stop();
  });
  printer.listening(srv, so.web_dir);
  srv.run();
  // Stopped by a signal, or the accept loop failed: wake the waiter if it still waits.
  done = true;
  if (!signalled) pthread_kill(waiter.native_handle(), SIGTERM);
  waiter.join();
  const int rc = signalled ? 0 : 1;
  printer.stopped(srv, signalled, rc);
  return rc;
}

}  // namespace damka::cli
