// damka generate, the checks: the options into GenerateOptions, in the
// order the command has always checked them (generate_command.hpp).
#include "damka/table_paths.hpp"
#include "commands.hpp"  // warn_threads_above_cores
#include "generate_command.hpp"
#include "generate_ranks.hpp"
#include "thread_check.hpp"

namespace damka::cli {
namespace {

Error bad_argument(std::string message) { return Error(std::move(message), ErrorCode::InvalidArgument); }

// -o T/russian names the variant's own subfolder: build into T (its
// parent), not T/russian/russian, as every reader takes that folder too.
std::string tables_folder(const GenerateCommandOptions& o, const Rules& rules, bool speaks, const Report& report) {
  std::filesystem::path out = o.out;
  if (out.filename().empty() && out.has_parent_path()) out = out.parent_path();
  const std::string family = table_family(rules);
  std::error_code ec;
  if (out.filename() != family || std::filesystem::is_directory(out / family, ec)) return o.out;
  const std::filesystem::path parent = out.parent_path().empty() ? std::filesystem::path(".") : out.parent_path();
  if (speaks && !o.json)
    report.warn(out.string() + " is the " + family + " subfolder; building into " + parent.string() +
                " (tables go to " + (parent / family).string() + ")");
  return parent.string();
}

// -m: a material with both sides, within -n and what damka builds.
Expected<Material> only_material(const GenerateCommandOptions& o) {
  auto m = Material::parse(o.material);
  if (!m) return bad_argument(m.message());
  if (m->white() == 0 || m->black() == 0)
    return bad_argument("material " + m->name() + " has a side without pieces (nothing to solve)");
  if (m->pieces() > o.pieces) return bad_argument(material_outside_pieces(m->name(), m->pieces(), o.pieces));
  if (m->pieces() > kMaxGeneratePieces)
    return bad_argument("material " + m->name() + " has " + std::to_string(m->pieces()) +
                        " pieces; damka builds tables of at most " + std::to_string(kMaxGeneratePieces) +
                        " pieces (as -n)");
  return *m;
}

}  // namespace

Expected<GenerateSetup> setup_generate(const GenerateCommandOptions& o, Report& report) {
  GenerateSetup s;
  // Under mpirun: this process is one rank of a job (generate_ranks.hpp).
  auto joined = join_launcher_job();
  if (!joined) return bad_argument(joined.message());
  s.cluster = std::move(*joined);
  s.on_ranks = s.cluster && s.cluster->size() > 1;
  s.speaks = !s.cluster || s.cluster->rank() == 0;  // rank 0 prints the summary
  auto rules = variant_named(o.variant);
  if (!rules) return rules.error();
  s.rules = *rules;
  report.set("variant", std::string(s.rules->name));
  report.set("folder", o.out);
  if (o.out.empty()) return bad_argument("--out is empty; name the directory of tables (e.g. -o data/tables)");
  s.out = tables_folder(o, *s.rules, s.speaks, report);
  report.set("folder", s.out);
  GenerateOptions& opt = s.opt;
  opt.threads = resolve_threads(o.threads);
  warn_threads_above_cores("generate", opt.threads);
  if (!o.dry_run)
    if (Status t = check_threads(opt.threads); !t.ok()) return Error(t.message(), ErrorCode::Other);  // exit 1
  opt.max_pieces = o.pieces;
  opt.out = s.out;
  opt.dry_run = o.dry_run;
  opt.cluster = s.cluster.get();
  if (o.split_given) opt.split_above = o.split_above;
  if (o.ranks > 0 && !o.dry_run)
    return bad_argument("--ranks plans a run on several ranks with --dry-run; to run on N ranks, start "
                        "`mpirun -np N damka generate ...`");
  if (o.ranks > 0 && s.cluster && o.ranks != s.cluster->size())
    return bad_argument("--ranks " + std::to_string(o.ranks) + " but mpirun started " +
                        std::to_string(s.cluster->size()) + " ranks");
  opt.ranks = s.cluster ? s.cluster->size() : std::max(1, o.ranks);
  auto metrics = parse_metrics(o.metrics);
  if (!metrics) return bad_argument("--metrics: " + metrics.message());
  opt.metrics = *metrics;
  opt.compression = o.compression == compression_name(Compression::Small) ? Compression::Small : Compression::Fast;
  opt.one_side = o.one_side;
  auto memory = memory_bytes(o.memory);
  if (!memory) return memory.error();
  opt.memory_budget = *memory;
  if (!o.material.empty()) {
    auto m = only_material(o);
    if (!m) return m.error();
    opt.only = *m;
  }
  return s;
}

}  // namespace damka::cli
