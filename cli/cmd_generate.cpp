// damka generate: build every table up to N pieces for a variant.  This
// file is the parsing: the options CLI11 fills; the checks are
// setup_generate (generate_setup.cpp), the work run_generate
// (generate_run.cpp), the output generate_print.cpp.
#include "commands.hpp"
#include "common.hpp"
#include "generate_command.hpp"

namespace damka::cli {

void register_generate(CLI::App& app, int& rc, const Context& context) {
  auto* cmd = app.add_subcommand("generate", "Build every table of up to N pieces (both sides present) for a variant");
  auto o = std::make_shared<GenerateCommandOptions>();
  cmd->add_option("-v,--variant", o->variant, "Variant: " + variant_names())->capture_default_str();
  cmd->add_option("-n,--pieces", o->pieces, "Largest number of pieces on the board")
      ->capture_default_str()->check(CLI::Range(2, kMaxGeneratePieces));
  cmd->add_option("-o,--out", o->out, "Directory of tables (a subfolder per variant family)")->capture_default_str();
  cmd->add_option("-t,--threads", o->threads, "Threads (0 = all cores)")->capture_default_str()->check(CLI::Range(0, 256));
  cmd->add_option("-m,--material", o->material, "Build only this material and what it needs, e.g. 3Kv1K");
  cmd->add_option("--metrics", o->metrics, "Tables to build: wdl,dtw,dtc or a subset (wdl is always built)")
      ->capture_default_str();
  cmd->add_option("--compression", o->compression,
                  "DTW/DTC files: fast (zstd level 7, 16384-position blocks) or small (level 15, 32768: about 12% "
                  "smaller, about 5x the compression time)")
      ->check(CLI::IsMember({"fast", "small"}, CLI::ignore_case))
      ->capture_default_str();
  cmd->add_flag("--one-side", o->one_side,
               "DTW/DTC files keep one side to move, the one that compresses better (about 2.4x smaller); the "
               "probe, verify, info --stats and statutes answer the other side by a search over its moves (slower "
               "DTW probes)");
  cmd->add_option("--memory", o->memory,
                  "Memory budget, e.g. 8G or 512M (default: 80% of this machine's memory); larger materials keep "
                  "their finished levels in a temporary file in the output folder")
      ->check(non_empty_size());
  cmd->add_flag("--dry-run", o->dry_run,
                "List what would be built with predicted peak memory, disk and time on this machine; build nothing");
  cmd->add_flag("--json", o->json, "Print the summary as JSON on stdout");
  cmd->add_option("--ranks", o->ranks,
                  "With --dry-run: plan for this many MPI ranks (under mpirun: the job's size); see README, "
                  "\"Building on several machines\"")
      ->check(CLI::Range(1, 4096));
  auto* split_opt = cmd->add_option("--split-above", o->split_above,
                                    "On several ranks: split every material of at least this many positions "
                                    "across the ranks, and no other (default: where the plan finishes sooner)")
                       ->check(CLI::NonNegativeNumber);
  cmd->callback([o, &rc, split_opt, &context] {
    Report report("generate", o->json);
    o->split_given = !split_opt->empty();
    auto setup = setup_generate(*o, report);
    if (!setup) {
      rc = report.fail(setup.error());
      return;
    }
    setup->opt.env = context.env;
    setup->opt.job_progress_hook = context.job_progress_hook;
    setup->opt.before_unit = context.before_unit;
    rc = run_generate(*o, *setup, report);
  });
}

}  // namespace damka::cli
