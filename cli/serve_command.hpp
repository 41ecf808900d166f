// damka serve, in three steps: the options CLI11 fills (cmd_serve.cpp), the
// server's options from them (serve_setup.cpp), the run (serve_run.cpp:
// signals, bind, serve until SIGINT or SIGTERM) and its output
// (serve_print.cpp: the listening and stopped events and the request log,
// text or one JSON object per line).  Only these files see the server's
// headers (cli/CMakeLists.txt).
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common.hpp"
#include "damka/env.hpp"
#include "damka/server.hpp"

namespace damka::cli {

struct ServeCommandOptions {
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
  // The Env every file of the command is opened through (cli::Context::env;
  // null: default_env()).  Set by the command, not by an option.
  Env* env = nullptr;
};

// The output of `damka serve`.  With --json each event is one line of JSON
// on stdout, written whole (a line at a time, under a mutex: the server's
// workers log at once).  Thread-safe.
class ServePrinter {
 public:
  explicit ServePrinter(const ServeCommandOptions& o) : o_(o) {}
  // The server's request log: nothing with --quiet, a JSON event with
  // --json, else empty (the server's own text log).
  std::function<void(const std::string&)> log() const;
  // The server listens: where, and the explorer's files.
  void listening(const Server& server, const std::filesystem::path& web) const;
  // The server stopped (by a signal, or its accept loop failed), with the
  // exit code chosen.
  void stopped(const Server& server, bool signalled, int rc) const;

 private:
  void emit(const Json& j) const;
  const ServeCommandOptions& o_;
  std::shared_ptr<std::mutex> events_ = std::make_shared<std::mutex>();
};

// The server's options: the explorer's folder found (an error: the exit
// code is 2) and every option carried over; the log from `printer`.
Expected<ServeOptions> setup_serve(const ServeCommandOptions& o, const ServePrinter& printer);

// Serves until SIGINT or SIGTERM (blocked in every thread, waited for by a
// thread of its own).  Returns the exit code: 0 stopped by a signal, 1 the
// server could not start (reported) or stopped listening.
int run_serve(const ServeOptions& so, const ServePrinter& printer, const Report& report);

}  // namespace damka::cli
