// damka verify: re-check every stored value by a one-ply search, for every
// variant whose tables the folder holds (or the one named with -v).
#include <cstdio>
#include <iostream>

#include "commands.hpp"
#include "common.hpp"
#include "damka/generate.hpp"
#include "damka/table_paths.hpp"
#include "damka/verify.hpp"
#include "progress.hpp"
#include "thread_check.hpp"

namespace damka::cli {

void register_verify(CLI::App& app, int& rc) {
  auto* cmd = app.add_subcommand("verify", "Re-check every stored value of every table in DIR by a one-ply search");
  cmd->footer(
      "DIR is the folder given to `damka generate -o` (holding russian/, english/, ...) or one of its variant\n"
      "subfolders.  Without -v every variant found in the tables' headers is verified.  Every bad file is\n"
      "listed once (missing, unreadable, damaged, built for other rules, or holding another table than its name\n"
      "says) and the tables that read it are \"not verifiable\"; names that are no table are listed as stray.\n"
      "Tables are checked one at a time, level by level, within --memory.  Exit: 0 all good, 3 mismatches,\n"
      "1 bad or missing files.");
  struct Opts {
    std::string variant;
    std::string dir = "data/tables";
    int threads = 0;
    std::string memory, material;
    bool json = false;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("dir", o->dir, "Directory of tables (as given to damka generate --out)")->capture_default_str();
  cmd->add_option("-v,--variant", o->variant, "Only this variant (default: every variant found): " + variant_names());
  cmd->add_option("-t,--threads", o->threads, "Threads (0 = all cores)")->capture_default_str()->check(CLI::Range(0, 256));
  cmd->add_option("--memory", o->memory,
                  "Memory budget, e.g. 2G or 512M (default: 80% of this machine's memory, as generate)")
      ->check(non_empty_size());
  cmd->add_option("-m,--material", o->material, "Verify this material only (e.g. 3Kv1K; needs -v)");
  cmd->add_flag("--json", o->json, "Print the report as JSON on stdout");
  cmd->callback([o, &rc] {
    Report report("verify", o->json);
    report.set("folder", o->dir);
    VerifyOptions vopt;
    if (!memory_option(report, o->memory, vopt.memory_budget, rc)) return;
    if (!o->material.empty()) {
      auto m = Material::parse(o->material);
      if (!m || !m->is_valid() || m->white() == 0 || m->black() == 0) {
        rc = report.fail(2, "--material: " + (m ? "no table holds " + o->material : m.message()));
        return;
      }
      if (o->variant.empty()) {
        rc = report.fail(2, "--material needs -v VARIANT");
        return;
      }
      vopt.only = m->canonical();
    }
    auto scan = scan_table_folder(o->dir);
    if (!scan) {
      rc = report.fail(1, scan.message());
      return;
    }
    report.set("folder", scan->root.string());
    // The rules to verify: -v, or one per family folder (its headers' first variant).
    std::vector<const Rules*> todo;
    if (!o->variant.empty()) {
      const Rules* r = lookup_variant(report, o->variant, rc);
      if (!r) return;
      if (!scan->family_of(*r)) {
        report.set("variant", std::string(r->name));
        // Temporary files a killed `damka generate` left are named even so.
        Json strays = Json::array();
        for (const auto& p : temp_table_files(table_dir(scan->root, *r))) {
          std::cerr << "damka verify: stray temporary file " << p.string()
                    << " (left by a killed run; the next `damka generate` into this folder removes it)\n";
          strays.push_back(p.string());
        }
        if (!strays.empty()) report.set("stray_files", strays);
        rc = report.fail(1, "no " + std::string(r->name) + " tables in " + scan->root.string() + " (found: " +
                                scan->describe() + "; build them with `damka generate -v " + std::string(r->name) +
                                " -o " + scan->root.string() + "`)");
        return;
      }
      todo.push_back(r);
    } else {
      for (const auto& f : scan->families)
        todo.push_back(&rules_of(f.variants.empty() ? *parse_variant(f.family) : f.variants.front()));
    }
    if (todo.empty()) {
      rc = report.fail(1, scan->unreadable.empty()
                              ? "no tables in " + scan->root.string() + " (build them with `damka generate -v VARIANT -o " +
                                    scan->root.string() + "`)"
                              : "no readable tables in " + scan->root.string() + " (" + scan->describe() + ")");
      return;
    }
    vopt.threads = resolve_threads(o->threads);
    warn_threads_above_cores("verify", vopt.threads);
    if (Status s = check_threads(vopt.threads); !s.ok()) {
      rc = report.fail(1, s.message());
      return;
    }
    // A family folder that cannot be read: named, the others verified, exit 1.
    Json unreadable = Json::array();
    for (const auto& u : scan->unreadable) {
      std::cerr << "damka verify: cannot read " << u << " (its tables are not verified)\n";
      unreadable.push_back(u);
    }
    Json bad_files = Json::array(), variants = Json::array(), strays = Json::array(), files = Json::array();
    std::uint64_t total_bad = 0, total_positions = 0;
    bool any_bad = false;
    for (const Rules* r : todo) {
      const TableFamilyFolder& fam = *scan->family_of(*r);
      if (!o->json) {
        std::printf("%s%s tables in %s (%s)\n", r != todo.front() ? "\n" : "", std::string(r->display_name).c_str(),
                    fam.folder.string().c_str(), fam.variants.empty() ? "no readable header" : ("built as " + variant_list(fam.variants)).c_str());
        if (const std::string note = shared_folder_note(*r, scan->root); !note.empty()) std::printf("%s\n", note.c_str());
      }
      ProgressBar bar;
      Json tables = Json::array(), mismatches = Json::array();
      VerifyCallbacks cb;
      cb.progress = [&](const VerifyProgress& p) {
        char pct[16];
        std::snprintf(pct, sizeof pct, "%.0f%%", p.total ? 100.0 * double(p.done) / double(p.total) : 100.0);
        bar.update_run(double(p.overall_done), double(p.overall_total), p.elapsed, "positions",
                       "verify " + std::string(r->name) + " table " + std::to_string(p.table_number) + "/" +
                           std::to_string(p.tables_total) + " " + p.material.name() + " " + pct);
      };
      cb.file_problem = [&](const VerifyFileProblem& f) {
        if (f.kind == VerifyFileProblem::Kind::Stray) {
          strays.push_back(f.path.string());
          if (!o->json) std::printf("STRAY FILE %s\n", f.message.c_str());
          return;
        }
        bad_files.push_back(f.message);
        files.push_back({{"kind", file_problem_name(f.kind)}, {"path", f.path.string()}, {"message", f.message}});
        if (!o->json) std::printf("%s FILE %s\n", f.kind == VerifyFileProblem::Kind::Missing ? "MISSING" : "BAD", f.message.c_str());
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
      cb.table_done = [&](const VerifyReport& t) {
        bar.finish();
        if (!t.error.empty()) {
          if (!t.error_in_dependency &&
              std::find(bad_files.begin(), bad_files.end(), Json(t.error)) == bad_files.end())
            bad_files.push_back(t.error);
          any_bad = true;
          if (o->json)
            tables.push_back({{"material", t.material.name()}, {"error", t.error},
                              {"not_verifiable", t.error_in_dependency}});
          else
          {
            const std::string prefix = "not verifiable: ";
            const bool dep = t.error_in_dependency && t.error.rfind(prefix, 0) == 0;
            std::printf("%-10s %s: %s\n", t.material.name().c_str(), dep ? "NOT VERIFIABLE" : "NOT VERIFIED",
                        (dep ? t.error.substr(prefix.size()) : t.error).c_str());
          }
        } else if (o->json) {
          tables.push_back({{"material", t.material.name()}, {"positions", t.positions},
                            {"mismatches", t.mismatches}, {"seconds", t.seconds}});
        } else {
          std::printf("%-10s %12llu positions  %s  %.2f s\n", t.material.name().c_str(),
                      static_cast<unsigned long long>(t.positions),
                      t.mismatches ? (std::to_string(t.mismatches) + " MISMATCHES").c_str() : "ok", t.seconds);
        }
        std::fflush(stdout);
      };
      auto result = verify_tables(*r, scan->root, vopt, cb);
      bar.finish();
      // Temporary files a killed `damka generate` left: named, not fatal.
      for (const auto& p : temp_table_files(table_dir(scan->root, *r))) {
        std::cerr << "damka verify: stray temporary file " << p.string()
                  << " (left by a killed run; the next `damka generate` into this folder removes it)\n";
        strays.push_back(p.string());
      }
      if (!result) {
        bad_files.push_back(result.message());
        if (!o->json) std::printf("BAD FOLDER %s\n", result.message().c_str());
        continue;
      }
      std::uint64_t bad = 0, positions = 0, verified = 0;
      for (const VerifyReport& t : result->tables) {
        if (!t.error.empty()) continue;
        ++verified;
        bad += t.mismatches;
        positions += t.positions;
      }
      total_bad += bad;
      total_positions += positions;
      if (o->json)
        variants.push_back({{"variant", std::string(r->name)}, {"tables_folder", fam.folder.string()},
                            {"built_as", variant_list(fam.variants)}, {"tables", tables}, {"mismatches", mismatches},
                            {"positions", positions}, {"mismatch_count", bad}});
      else
        std::printf("%s: %llu tables verified, %llu positions, %llu mismatches\n", std::string(r->name).c_str(),
                    static_cast<unsigned long long>(verified), static_cast<unsigned long long>(positions),
                    static_cast<unsigned long long>(bad));
    }
    rc = (any_bad || !bad_files.empty() || !unreadable.empty()) ? 1 : total_bad ? 3 : 0;
    if (o->json) {
      Json j = report.object();
      j["variant"] = todo.size() == 1 ? Json(std::string(todo.front()->name)) : Json(nullptr);
      j["variants"] = variants;
      j["bad_files"] = bad_files;
      j["stray_files"] = strays;
      j["unreadable_folders"] = unreadable;
      j["files"] = files;
      j["positions"] = total_positions;
      j["mismatch_count"] = total_bad;
      j["exit_code"] = rc;
      std::cout << j.dump(2) << "\n";
    } else if (!bad_files.empty()) {
      std::printf("\n%zu bad files:\n", bad_files.size());
      for (const auto& b : bad_files) std::printf("  %s\n", b.get<std::string>().c_str());
    }
  });
}

}  // namespace damka::cli
