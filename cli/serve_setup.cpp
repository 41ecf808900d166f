// damka serve: the server's options from the command's (serve_command.hpp).
#include "serve_command.hpp"

namespace damka::cli {

Expected<ServeOptions> setup_serve(const ServeCommandOptions& o, const ServePrinter& printer) {
  auto web = find_web_dir(exe_dir(), o.web, env_or_default(o.env));
  if (!web) return web.error();
  ServeOptions so;
  so.tables = o.tables;
  so.host = o.host;
  so.port = o.port;
  so.threads = o.threads;
  so.web_dir = *web;
  so.exe_dir = exe_dir();
  so.rulebooks_dir = o.rulebooks_dir;
  so.cache_bytes = static_cast<std::size_t>(o.cache_mb) << 20;
  so.stats_threads = resolve_threads(o.stats_threads);
  so.allow_hosts = o.allow_hosts;
  so.cors_origin = o.cors;
  so.read_timeout_ms = static_cast<int>(o.read_timeout * 1000 + 0.5);
  so.idle_timeout_ms = static_cast<int>(o.idle_timeout * 1000 + 0.5);
  so.max_client_connections = o.per_client;
  so.warm_statutes = o.warm_statutes_mb > 0;
  so.warm_statutes_bytes = static_cast<std::uint64_t>(o.warm_statutes_mb) << 20;
  if (auto log = printer.log()) so.log = std::move(log);
  so.env = o.env;
  return so;
}

}  // namespace damka::cli
