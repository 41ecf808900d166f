// The HTTP server behind `damka serve`: a JSON API over the tables and the
// web explorer's files.
//
//   GET /api/v1/{variant}?fen=F[&pv=0][&rulebook=R&moves=N]
//        the position's value, every move's value and the principal
//        variation: position_json() (the JSON of `damka probe --json --pv`)
//   GET /api/v1/{variant}/statutes?fen=F[&rulebook=R][&moves=N]
//        the draw statutes' verdict: statutes_json() (statute_json.hpp) with variant, fen, material
//   GET /api/v1/{variant}/stats[?material=M]
//        every material's statistics (or M's): variant_stats_json() with
//        "errors" (materials that could not be counted); an unknown material 404
//   GET /api/v1/tables    every variant: its board, rulebooks and the materials present
//   GET /healthz          {"status": "ok", ...}
//   GET /, /app.js, ...   the explorer's files (web_dir)
//
// Bad input (unknown variant, bad FEN, invalid position, bad parameter,
// oversized value) answers 400 with {"code", "error"}; an unknown path 404;
// a request line over 8 KiB 414 (the same JSON).  A missing table is not an
// error: the value says "unknown".  Each request is logged as one line.
//
// Connections: each waits at the door (one thread, no worker held) until
// its whole request has arrived, then one of `threads` workers answers it and
// the kept-alive connection goes back to the door.  A request that does not
// arrive within read_timeout_ms, or a connection silent for idle_timeout_ms,
// is closed (408 when part of a request came); a client address holding
// max_client_connections connections, or the server max_connections, gets
// 503.  The Host header must name the listening address (allow_hosts); no
// CORS header unless cors_origin is set.  Probes share one Tablebase per
// variant (lock-free cache hits); statute verdicts take a per-variant lock
// (their table values are loaded on first use and kept); statistics take a
// per-variant lock while one material's are computed (material_stats(), with
// stats_threads threads; seconds for a 5-piece material), then are kept.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "damka/env.hpp"
#include "damka/expected.hpp"

namespace damka {

struct ServeOptions {
  std::filesystem::path tables;    // the directory given to `damka generate -o`
  std::string host = "127.0.0.1";  // loopback unless told otherwise
  int port = 8642;                 // 0: any free port (see Server::port())
  int threads = 8;                 // connections served at once
  std::filesystem::path web_dir;   // the explorer's files (index.html, app.js, style.css)
  std::filesystem::path exe_dir;   // for rulebook_search_path()
  std::filesystem::path rulebooks_dir;          // if not empty: the only rulebook directory
  std::size_t cache_bytes = std::size_t{64} << 20;  // block cache of each variant's Tablebase
  int stats_threads = 0;           // threads computing a material's statistics (0: OpenMP default)
  // Host header names accepted (without port), case-insensitive; "*" any.
  // Empty: the listening host's own names (a loopback host: also localhost,
  // 127.0.0.1 and [::1]); a wildcard host (0.0.0.0, ::) accepts any Host.
  // A request naming another host (DNS rebinding) answers 403 "bad_host";
  // a request without Host is accepted (not a browser).
  std::vector<std::string> allow_hosts;
  std::string cors_origin;          // Access-Control-Allow-Origin sent (empty: none, the default)
  int read_timeout_ms = 10000;      // a request must arrive whole within this
  int idle_timeout_ms = 5000;       // a connection silent this long is closed
  int max_client_connections = 32;  // per client address
  int max_connections = 512;        // in all
  // Once run() starts: compute every rulebook's statute values of the tables'
  // materials on a background thread, smallest materials first, up to
  // `warm_statutes_bytes` of counts in memory (the rest on first request), so
  // that a statute request need not wait for them.  Requests for a variant
  // wait only while the one material being computed finishes.
  bool warm_statutes = false;
  std::uint64_t warm_statutes_bytes = std::uint64_t{256} << 20;
  // One line per request (and table errors); default: standard error.
  std::function<void(const std::string&)> log;
  // The tables' files are opened and read through it (TablebaseOptions::env,
  // TableDirOptions::env; env.hpp); null: default_env().  Must outlive the
  // Server.
  Env* env = nullptr;
};

// Where the explorer's files are: `override_dir` when given; else
// <exe_dir>/../share/damka/web (installed), <exe_dir>/web, then the source
// tree's serve/web (compiled in).  The first directory holding index.html
// (a regular file, stat'ed through `env`), its links resolved.  An error
// names every place tried.  Cost: a stat per place.  Thread-safe when
// `env` is.
Expected<std::filesystem::path> find_web_dir(const std::filesystem::path& exe_dir,
                                             const std::filesystem::path& override_dir = {},
                                             Env& env = default_env());

class Server {
 public:
  // Opens every variant's tables and loads the rulebooks and web files.
  // Cost: one directory scan per variant and the files read once (web files
  // are then served from memory).  Errors: `tables` is not a directory, the
  // web files cannot be read, threads < 1.
  static Expected<std::unique_ptr<Server>> create(ServeOptions options);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Binds host:port (SO_REUSEADDR, never SO_REUSEPORT: a port another
  // server listens on is refused).  Errors: the port is in use (ErrorCode::Io,
  // the message says so), the address cannot be bound.
  // Call once, before run(), from the thread that created the server.
  Status bind();
  // The bound port (after bind()).
  int port() const;
  // Serves until stop() is called (from any thread).  Call after bind().
  void run();
  // Stops run(); thread-safe, may be called before run() starts.
  void stop();
  // Requests answered so far (thread-safe).
  std::uint64_t requests() const;

  // Answers what a client sent on one connection, given as raw bytes, as a
  // worker does (the door's check that a whole request arrived, then the
  // request line, headers, routes, parameters and Host check) and returns
  // the bytes it would write back ("" when the door would still wait).  For
  // tests and the HTTP fuzzer; needs no bind().  Cost: one request's work.
  // Thread-safe as requests are.
  std::string answer_raw(std::string_view request);

 private:
  struct Impl;
  explicit Server(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace damka
