// Shared helpers of the subcommands (common.hpp).
#include "common.hpp"

#include <cerrno>
#include <fstream>
#include <memory>
#include <set>

#include "commands.hpp"

#include "damka/generate.hpp"
#include "damka/table_paths.hpp"

#include <signal.h>
#include <sys/resource.h>

namespace damka::cli {

int exit_code_of(ErrorCode code) {
  return code == ErrorCode::InvalidArgument || code == ErrorCode::InvalidPosition ? 2 : 1;
}

int Report::fail(int code, const std::string& message) const {
  if (json_) {
    Json j = object();
    j["error"] = message;
    j["exit_code"] = code;
    // The message may quote the user's bytes (a FEN that is not UTF-8): replaced, never thrown on.
    std::cout << j.dump(2, ' ', false, Json::error_handler_t::replace) << "\n";
  } else {
    std::cerr << "damka " << command_ << ": " << message << "\n";
  }
  return code;
}

void Report::warn(const std::string& message) const { std::cerr << "damka " << command_ << ": " << message << "\n"; }

Json Report::object() const {
  Json j = {{"command", command_}};
  for (auto it = context_.begin(); it != context_.end(); ++it) j[it.key()] = it.value();
  return j;
}

void warn_threads_above_cores(const std::string& command, int threads) {
  const unsigned cores = std::thread::hardware_concurrency();
  if (cores > 0 && threads > static_cast<int>(cores))
    std::cerr << "damka " << command << ": warning: " << threads << " threads on " << cores
              << " cores: slower, not faster (threads take turns and wait on each other); -t " << cores
              << " or less is best\n";
}

Expected<std::uint64_t> memory_bytes(const std::string& text) {
  if (text.empty()) return default_memory_budget();
  auto mem = parse_memory_size(text);
  if (!mem) return Error("--memory: " + mem.message(), ErrorCode::InvalidArgument);
  return *mem;
}

std::uint64_t peak_rss_bytes() {
  struct rusage u{};
  if (getrusage(RUSAGE_SELF, &u) != 0) return 0;
  return static_cast<std::uint64_t>(u.ru_maxrss) * 1024;  // Linux: kilobytes
}

std::string peak_memory_words(std::uint64_t budget) {
  const std::uint64_t peak = peak_rss_bytes();
  std::string s = "peak memory " + format_bytes(peak);
  if (budget > 0)
    s += ", " + std::to_string(static_cast<int>(100.0 * static_cast<double>(peak) / static_cast<double>(budget) + 0.5)) +
         "% of the " + format_bytes(budget) + " budget";
  return s;
}

void add_peak_memory(Json& j, std::uint64_t budget) {
  j["peak_rss_bytes"] = peak_rss_bytes();
  j["memory_budget_bytes"] = budget;
}

bool memory_option(const Report& report, const std::string& text, std::uint64_t& bytes, int& rc) {
  auto mem = memory_bytes(text);
  if (!mem) {
    bytes = default_memory_budget();
    rc = report.fail(mem.error());
    return false;
  }
  bytes = *mem;
  return true;
}

Expected<const Rules*> variant_named(const std::string& name) {
  const auto v = parse_variant(name);
  if (!v) return Error("unknown variant '" + name + "' (known: " + variant_names() + ")", ErrorCode::InvalidArgument);
  return &rules_of(*v);
}

const Rules* lookup_variant(const Report& report, const std::string& name, int& rc) {
  auto rules = variant_named(name);
  if (!rules) {
    rc = report.fail(rules.error());
    return nullptr;
  }
  return *rules;
}

std::string variant_list(const std::vector<Variant>& vs) {
  std::string s;
  for (Variant v : vs) s += (s.empty() ? "" : ", ") + std::string(rules_of(v).name);
  return s;
}

Expected<const Rules*> choose_variant(const std::string& given, const TableFolderScan& scan,
                                      const std::function<bool(const Rules&)>& accepts, const std::string& what) {
  if (!given.empty()) return variant_named(given);
  // The arguments do not choose a variant.
  const auto bad = [](std::string message) { return Error(std::move(message), ErrorCode::InvalidArgument); };
  const auto present = scan.variants();
  if (present.empty() && !scan.unreadable.empty())
    return bad("no readable tables in " + scan.root.string() + " (" + scan.describe() + ")");
  // Table files that could not be read: the I/O error (naming the file), not "no tables".
  if (present.empty() && !scan.io_error().empty()) return Error(scan.io_error(), ErrorCode::Io);
  if (present.empty())
    return bad("no tables in " + scan.root.string() +
               " (build them with `damka generate -v VARIANT -o " + scan.root.string() + "`)");
  std::vector<Variant> fit;
  for (Variant v : present)
    if (accepts(rules_of(v))) fit.push_back(v);
  if (fit.size() == 1) return &rules_of(fit.front());
  // One variant there: use it, so that the caller says what is wrong for it.
  if (present.size() == 1) return &rules_of(present.front());
  if (fit.empty())
    return bad(what + " fits none of the variants with tables in " + scan.root.string() + " (" +
               scan.describe() + "); name one with -v");
  return bad(what + " fits several variants with tables in " + scan.root.string() + " (" + variant_list(fit) +
             "); name one with -v");
}

std::string shared_folder_note(const Rules& rules, const std::filesystem::path& root) {
  const std::string family = table_family(rules);
  if (family == rules.name) return "";
  const Rules& owner = rules_of(*parse_variant(family));
  return std::string(rules.display_name) + " plays the same game as " + std::string(owner.display_name) +
         ": its tables are " + std::string(owner.display_name) + "'s, in " + (root / family).string();
}

std::string material_outside_pieces(const std::string& material, int pieces, int max_pieces) {
  return "material " + material + " has " + std::to_string(pieces) + " pieces, more than --pieces " +
         std::to_string(max_pieces) + " (give -n " + std::to_string(pieces) + " or more)";
}

Json generate_json(const Rules& rules, const std::filesystem::path& out, Json tables) {
  Json j = {{"command", "generate"}, {"variant", std::string(rules.name)}, {"folder", out.string()},
            {"tables_folder", table_dir(out, rules).string()}};
  const std::string note = shared_folder_note(rules, out);
  if (!note.empty()) j["note"] = note;
  j["tables"] = std::move(tables);
  return j;
}

Expected<std::unique_ptr<Tablebase>> open_command_tables(Report& report, const Rules& rules,
                                                         const std::filesystem::path& root, TablebaseOptions topt) {
  // Each problem once (an I/O failure may repeat on every probe that needs the file).
  auto seen = std::make_shared<std::set<std::string>>();
  topt.on_error = [report, seen](const std::string& message) {
    if (seen->insert(message).second) report.warn("error: " + message);
  };
  const std::string build = " (build them with `damka generate -v " + std::string(rules.name) + " -o " +
                            root.string() + "`)";
  auto opened = Tablebase::open(rules, root, topt);
  if (!opened)
    return opened.code() == ErrorCode::Io ? Error("cannot open tables: " + opened.message(), ErrorCode::Io)
                                          : Error("cannot open tables: " + opened.message() + build, ErrorCode::NotFound);
  report.set("tables_folder", (*opened)->directory().string());
  if ((*opened)->max_pieces() == 0)
    return Error("no " + std::string(rules.name) + " tables in " + (*opened)->directory().string() + build,
                 ErrorCode::NotFound);
  return std::move(*opened);
}

std::string temp_file_words(const std::filesystem::path& p) {
  const long pid = temp_table_file_pid(p.filename().string());
  bool running = pid > 0 && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM);
  if (running) {  // a pid reused by another program is no writer of tables
    std::ifstream comm("/proc/" + std::to_string(pid) + "/comm");
    std::string name;
    if (comm && std::getline(comm, name)) running = name.rfind("damka", 0) == 0;
  }
  if (running)
    return "temporary file " + p.string() + " of damka process " + std::to_string(pid) +
           ", still running (a `damka generate` into this folder: it renames or removes the file when it ends)";
  return "stray temporary file " + p.string() +
         " (left by a killed run; the next `damka generate` into this folder removes it)";
}

}  // namespace damka::cli
