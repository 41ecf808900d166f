// damka verify: re-check every stored value by a one-ply search.
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "common.hpp"
#include "damka/table_paths.hpp"
#include "damka/verify.hpp"
#include "progress.hpp"

namespace damka::cli {

void register_verify(CLI::App& app, int& rc) {
  auto* cmd = app.add_subcommand("verify", "Re-check every stored value of every table in DIR by a one-ply search");
  struct Opts {
    std::string variant = "russian";
    std::string dir = "data/tables";
    int threads = 0;
    bool json = false;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("dir", o->dir, "Directory of tables (as given to damka generate --out)")->capture_default_str();
  cmd->add_option("-v,--variant", o->variant, "Variant: " + variant_names())->capture_default_str();
  cmd->add_option("-t,--threads", o->threads, "Threads (0 = all cores)")->capture_default_str()->check(CLI::Range(0, 256));
  cmd->add_flag("--json", o->json, "Print the report as JSON on stdout");
  cmd->callback([o, &rc] {
    const Rules* rules = lookup_variant("verify", o->variant);
    if (!rules) {
      rc = 2;
      return;
    }
    const int threads = resolve_threads(o->threads);
    ProgressBar bar;
    nlohmann::json tables = nlohmann::json::array(), mismatches = nlohmann::json::array();
    VerifyCallbacks cb;
    cb.progress = [&](const Material& m, std::uint64_t done, std::uint64_t total) {
      bar.update("[verify " + m.name() + "]", double(done), double(total));
    };
    cb.mismatch = [&](const VerifyMismatch& x) {
      bar.finish();
      if (o->json)
        mismatches.push_back({{"material", x.material.name()}, {"metric", x.metric}, {"fen", x.fen},
                              {"stored", x.stored}, {"expected", x.expected}});
      else
        std::printf("MISMATCH %s %s %s: stored %s, one-ply search gives %s\n", x.material.name().c_str(),
                    x.metric.c_str(), x.fen.c_str(), x.stored.c_str(), x.expected.c_str());
    };
    cb.table_done = [&](const VerifyReport& r) {
      bar.finish();
      if (o->json)
        tables.push_back({{"material", r.material.name()}, {"positions", r.positions},
                          {"mismatches", r.mismatches}, {"seconds", r.seconds}});
      else
        std::printf("%-10s %12llu positions  %s  %.2f s\n", r.material.name().c_str(),
                    static_cast<unsigned long long>(r.positions),
                    r.mismatches ? (std::to_string(r.mismatches) + " MISMATCHES").c_str() : "ok", r.seconds);
      std::fflush(stdout);
    };
    auto result = verify_tables(*rules, o->dir, threads, cb);
    bar.finish();
    // Temporary files a killed `damka generate` left: named, not fatal.
    nlohmann::json strays = nlohmann::json::array();
    for (const auto& p : temp_table_files(table_dir(o->dir, *rules))) {
      std::cerr << "damka verify: stray temporary file " << p.string()
                << " (left by a killed run; the next `damka generate` into this folder removes it)\n";
      strays.push_back(p.string());
    }
    if (!result) {
      std::cerr << "damka verify: " << result.message() << "\n";
      rc = 1;
      return;
    }
    std::uint64_t bad = 0, positions = 0;
    for (const VerifyReport& r : *result) {
      bad += r.mismatches;
      positions += r.positions;
    }
    if (o->json)
      std::cout << nlohmann::json{{"tables", tables}, {"mismatches", mismatches}, {"positions", positions},
                                  {"mismatch_count", bad}, {"stray_files", strays}}
                       .dump(2)
                << "\n";
    else
      std::printf("%zu tables, %llu positions, %llu mismatches\n", result->size(),
                  static_cast<unsigned long long>(positions), static_cast<unsigned long long>(bad));
    rc = bad ? 3 : 0;
  });
}

}  // namespace damka::cli
