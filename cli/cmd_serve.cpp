// damka serve: the web explorer and JSON API over the tables (the work is in
// damka_serve, serve/include/damka/server.hpp).  This file is the parsing:
// the options CLI11 fills; the server's options are setup_serve
// (serve_setup.cpp), the run run_serve (serve_run.cpp), the output
// ServePrinter (serve_print.cpp).
#include "commands.hpp"
#include "common.hpp"
#include "serve_command.hpp"

namespace damka::cli {

void register_serve(CLI::App& app, int& rc, const Context& context) {
  auto* cmd = app.add_subcommand("serve", "Serve the web explorer and the JSON API over the tables (HTTP)");
  auto o = std::make_shared<ServeCommandOptions>();
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
  cmd->callback([o, &rc, &context] {
    o->env = context.env;
    Report report("serve", o->json);
    report.set("folder", o->tables);
    const ServePrinter printer(*o);
    auto so = setup_serve(*o, printer);
    if (!so) {
      rc = report.fail(2, so.message());
      return;
    }
    rc = run_serve(*so, printer, report);
  });
}

}  // namespace damka::cli
