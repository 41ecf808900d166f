// damka serve: the web explorer and JSON API over the tables (the work is in
// damka_serve, serve/include/damka/server.hpp).
#include <atomic>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <mutex>
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
    bool quiet = false, json = false;
    std::vector<std::string> allow_hosts;
    std::string cors;
    double read_timeout = 10, idle_timeout = 5;
    int per_client = 32;
    int warm_statutes_mb = 256;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("--tables", o->tables, "Directory of tables (as given to `damka generate -o`)")->capture_default_str();
  cmd->add_option("--host", o->host, "Address to listen on (loopback by default; 0.0.0.0 for every interface)")
      ->capture_default_str();
  cmd->add_option("-p,--port", o->port, "Port to listen on (0: any free port, printed at start)")
      ->capture_default_str()->check(CLI::Range(0, 65535));
  cmd->add_option("-t,--threads", o->threads, "Requests answered at once (workers; waiting connections hold none)")
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
  cmd->add_flag("--json", o->json,
                "One JSON object per line on stdout for each event: listening, each request's log line, stopped");
  cmd->add_option("--allow-host", o->allow_hosts,
                  "Host header names accepted (repeat or comma-separate; '*' any). Default: the --host address "
                  "(loopback: also localhost, 127.0.0.1, [::1]); any when --host is 0.0.0.0 or ::")
      ->delimiter(',');
  cmd->add_option("--cors", o->cors, "Allow this origin to read the API from its pages "
                                     "(Access-Control-Allow-Origin; default: none)");
  cmd->add_option("--read-timeout", o->read_timeout, "Seconds a request may take to arrive whole")
      ->capture_default_str()->check(CLI::Range(0.001, 3600.0));
  cmd->add_option("--idle-timeout", o->idle_timeout, "Seconds a connection may stay silent")
      ->capture_default_str()->check(CLI::Range(0.001, 3600.0));
  cmd->add_option("--max-client-connections", o->per_client,
                  "Connections one client address may hold (the excess is answered 503)")
      ->capture_default_str()->check(CLI::Range(1, 100000));
  cmd->callback([o, &rc] {
    Report report("serve", o->json);
    report.set("folder", o->tables);
    // --json: each event one line of JSON on stdout (a line at a time, whole).
    auto events = std::make_shared<std::mutex>();
    const auto emit = [o, events](Json j) {
      std::lock_guard lock(*events);
      std::cout << j.dump(-1, ' ', false, Json::error_handler_t::replace) << std::endl;
    };
    auto web = find_web_dir(exe_dir(), o->web);
    if (!web) {
      rc = report.fail(2, web.message());
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
    so.allow_hosts = o->allow_hosts;
    so.cors_origin = o->cors;
    so.read_timeout_ms = static_cast<int>(o->read_timeout * 1000 + 0.5);
    so.idle_timeout_ms = static_cast<int>(o->idle_timeout * 1000 + 0.5);
    so.max_client_connections = o->per_client;
    so.warm_statutes = o->warm_statutes_mb > 0;
    so.warm_statutes_bytes = static_cast<std::uint64_t>(o->warm_statutes_mb) << 20;
    if (o->quiet) so.log = [](const std::string&) {};
    else if (o->json) so.log = [emit](const std::string& line) { emit({{"command", "serve"}, {"event", "log"}, {"line", line}}); };
    // SIGINT and SIGTERM stop the server from a thread of their own (no work
    // in a signal handler); blocked before any server thread starts.
    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGINT);
    sigaddset(&signals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &signals, nullptr);

    auto server = Server::create(so);
    if (!server) {
      rc = report.fail(1, server.message());
      return;
    }
    if (Status s = (*server)->bind(); !s) {
      rc = report.fail(1, s.message());
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
    if (o->json)
      emit({{"command", "serve"}, {"event", "listening"}, {"folder", o->tables}, {"host", o->host}, {"port", srv.port()},
            {"url", "http://" + host + ":" + std::to_string(srv.port()) + "/"}, {"web", web->string()}});
    else {
      std::printf("damka serve: listening on http://%s:%d/ (tables %s, web files %s); Ctrl-C stops\n", host.c_str(),
                  srv.port(), o->tables.c_str(), web->c_str());
      std::fflush(stdout);
    }
    srv.run();
    // Stopped by a signal, or the accept loop failed: wake the waiter if it still waits.
    done = true;
    if (!signalled) pthread_kill(waiter.native_handle(), SIGTERM);
    waiter.join();
    rc = signalled ? 0 : 1;
    if (o->json) {
      Json j = {{"command", "serve"}, {"event", "stopped"}, {"requests", srv.requests()}, {"exit_code", rc}};
      if (!signalled) j["error"] = "the server stopped listening (accept failed)";
      emit(j);
      return;
    }
    std::fprintf(stderr, "damka serve: stopped after %llu requests\n",
                 static_cast<unsigned long long>(srv.requests()));
    if (!signalled) std::cerr << "damka serve: the server stopped listening (accept failed)\n";
  });
}

}  // namespace damka::cli
