// damka serve: the web explorer and JSON API over the tables (the work is in
// damka_serve, serve/include/damka/server.hpp).
#include <atomic>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <pthread.h>
#include <thread>

#include "commands.hpp"
#include "common.hpp"
#include "damka/server.hpp"

namespace damka::cli {

void register_serve(CLI::App& app, int& rc) {
  auto* cmd = app.add_subcommand("serve", "Serve the web explorer and the JSON API over the tables (HTTP)");
  struct Opts {
    std::string tables = "data/tables";
    std::string host = "127.0.0.1";
    int port = 8642;
    int threads = 8;
    std::string web;
    std::string rulebooks_dir;
    int cache_mb = 64;
    int stats_threads = 0;
    int warm_statutes_mb = 256;
    bool quiet = false;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("--tables", o->tables, "Directory of tables (as given to `damka generate -o`)")->capture_default_str();
  cmd->add_option("--host", o->host, "Address to listen on (loopback by default; 0.0.0.0 for every interface)")
      ->capture_default_str();
  cmd->add_option("-p,--port", o->port, "Port to listen on (0: any free port, printed at start)")
      ->capture_default_str()->check(CLI::Range(0, 65535));
  cmd->add_option("-t,--threads", o->threads, "Connections served at once")
      ->capture_default_str()->check(CLI::Range(1, 1024));
  cmd->add_option("--web", o->web, "Directory of the explorer's files (default: installed share/damka/web, "
                                   "else the source tree's serve/web)");
  cmd->add_option("--rulebooks-dir", o->rulebooks_dir, "Read rulebooks from this directory only");
  cmd->add_option("--cache-mb", o->cache_mb, "Block cache per variant, in MiB")
      ->capture_default_str()->check(CLI::Range(0, 1 << 20));
  cmd->add_option("--stats-threads", o->stats_threads,
                  "Threads computing a material's statistics (GET /api/v1/{variant}/stats; 0 = all cores)")
      ->capture_default_str()->check(CLI::Range(0, 256));
  cmd->add_option("--warm-statutes-mb", o->warm_statutes_mb,
                  "Compute the rulebooks' statute values of the tables' materials in the background at start, "
                  "smallest first, up to this many MiB of counts (0: only on first request)")
      ->capture_default_str()->check(CLI::Range(0, 1 << 20));
  cmd->add_flag("-q,--quiet", o->quiet, "Do not log requests");
  cmd->callback([o, &rc] {
    auto web = find_web_dir(exe_dir(), o->web);
    if (!web) {
      std::cerr << "damka serve: " << web.message() << "\n";
      rc = 2;
      return;
    }
    ServeOptions so;
    so.tables = o->tables;
    so.host = o->host;
    so.port = o->port;
    so.threads = o->threads;
    so.web_dir = *web;
    so.exe_dir = exe_dir();
    so.rulebooks_dir = o->rulebooks_dir;
    so.cache_bytes = static_cast<std::size_t>(o->cache_mb) << 20;
    so.stats_threads = resolve_threads(o->stats_threads);
    so.warm_statutes = o->warm_statutes_mb > 0;
    so.warm_statutes_bytes = static_cast<std::uint64_t>(o->warm_statutes_mb) << 20;
    if (o->quiet) so.log = [](const std::string&) {};
    // SIGINT and SIGTERM stop the server from a thread of their own (no work
    // in a signal handler); blocked before any server thread starts.
    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGINT);
    sigaddset(&signals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &signals, nullptr);

    auto server = Server::create(so);
    if (!server) {
      std::cerr << "damka serve: " << server.message() << "\n";
      rc = 1;
      return;
    }
    if (Status s = (*server)->bind(); !s) {
      std::cerr << "damka serve: " << s.message() << "\n";
      rc = 1;
      return;
    }
    Server& srv = **server;
    std::atomic<bool> signalled{false}, done{false};
    std::thread waiter([&srv, &signalled, &done, signals] {
      int sig = 0;
      sigwait(&signals, &sig);
      if (done) return;
      signalled = true;
      srv.stop();
    });
    const std::string host = o->host.find(':') != std::string::npos ? "[" + o->host + "]" : o->host;
    std::printf("damka serve: listening on http://%s:%d/ (tables %s, web files %s); Ctrl-C stops\n", host.c_str(),
                srv.port(), o->tables.c_str(), web->c_str());
    std::fflush(stdout);
    srv.run();
    // Stopped by a signal, or the accept loop failed: wake the waiter if it still waits.
    done = true;
    if (!signalled) pthread_kill(waiter.native_handle(), SIGTERM);
    waiter.join();
    std::fprintf(stderr, "damka serve: stopped after %llu requests\n",
                 static_cast<unsigned long long>(srv.requests()));
    if (!signalled) std::cerr << "damka serve: the server stopped listening (accept failed)\n";
    rc = signalled ? 0 : 1;
  });
}

}  // namespace damka::cli
