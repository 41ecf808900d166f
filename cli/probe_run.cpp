// damka probe, the work: read the game, choose the variant, open the
// tables, probe the position and judge it under a rulebook (probe_command.hpp).
#include <fstream>

#include "damka/notation.hpp"
#include "damka/table_scan.hpp"
#include "probe_command.hpp"

namespace damka::cli {
namespace {

Error bad_argument(std::string message) { return Error(std::move(message), ErrorCode::InvalidArgument); }

// The game file's text: at most 1 MiB, read with a byte to spare, so that
// /dev/zero or a huge file is refused, not swallowed.
Expected<std::string> read_game_file(const std::string& path) {
  constexpr std::size_t kMaxGame = std::size_t{1} << 20;
  std::ifstream in(path, std::ios::binary);
  if (!in) return bad_argument("cannot read the game file " + path);
  std::string text(kMaxGame + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (in.bad()) return bad_argument("cannot read the game file " + path);
  text.resize(static_cast<std::size_t>(in.gcount()));
  if (text.size() > kMaxGame) return bad_argument("the game file " + path + " is larger than 1 MiB");
  return text;
}

// The variant: -v, else the one the folder's headers name that reads the
// FEN (or the game) and that the rulebook governs.
Expected<const Rules*> probe_variant(const ProbeOptions& o, const std::string& game_text) {
  if (!o.variant.empty()) return variant_named(o.variant);
  auto scan = scan_table_folder(o.tables, env_or_default(o.env));
  if (!scan)
    return Error("cannot open tables: " + scan.message(), scan.code() == ErrorCode::Io ? ErrorCode::Io : ErrorCode::NotFound);
  // With --rulebook, only the variants it governs (a Russian game read
  // as English would fail later).
  std::optional<Rulebook> book;
  if (!o.rulebook.empty())
    if (auto b = load_rulebook(o.rulebook, rulebook_search_path(exe_dir()), env_or_default(o.env)); b) book = std::move(*b);
  const auto governed = [&](const Rules& r) { return !book || book->governs(r); };
  return o.fen.empty()
             ? choose_variant("", *scan, [&](const Rules& r) { return governed(r) && parse_game(r, game_text).ok(); },
                              "the game in " + o.game)
             : choose_variant("", *scan, [&](const Rules& r) { return governed(r) && parse_fen(r, o.fen).ok(); },
                              "the FEN '" + o.fen + "'");
}

// The position: the FEN, or where the game ends (both: they must agree).
Expected<Position> probe_position(const ProbeOptions& o, const Rules& rules, const std::optional<GameRecord>& game) {
  Position p;
  if (!o.fen.empty()) {
    auto parsed = parse_fen(rules, o.fen);
    // The message quotes the FEN (shortened, control characters escaped).
    if (!parsed) return bad_argument("bad FEN: " + parsed.message());
    p = *parsed;
    if (game && !(game->final_position() == p))
      return bad_argument("the FEN is not where the game in " + o.game + " ends (" +
                          to_fen(rules, game->final_position()) + "); give one of them");
  } else {
    p = game->final_position();
  }
  // The tables' own rule (probeable(), probe.hpp).
  if (const char* why = unprobeable_reason(p))
    return Error("invalid position " + quote_for_message(to_fen(rules, p)) + ": " + why, ErrorCode::InvalidPosition);
  return p;
}

// Each clause's moves played: counted from the game, then --moves.
Expected<StatuteCounters> probe_counters(const ProbeOptions& o, const Rulebook& book,
                                         const std::optional<GameRecord>& game) {
  StatuteCounters counters;
  if (game) counters = count_game(book, *game);
  if (!o.moves.empty()) {
    auto given = parse_statute_counters(book, o.moves);
    if (!given) return bad_argument("--moves: " + given.message());
    for (const auto& [k, n] : *given) counters[k] = n;
  }
  return counters;
}

}  // namespace

Expected<ProbeOutcome> run_probe(const ProbeOptions& o, Report& report) {
  report.set("folder", o.tables);
  if ((!o.moves.empty() || !o.game.empty()) && o.rulebook.empty())
    return bad_argument(std::string(o.moves.empty() ? "--game" : "--moves") +
                        " counts moves under a rulebook's clauses: give the rulebook with --rulebook (e.g. "
                        "--rulebook russian-federation)");
  std::string game_text;
  if (!o.game.empty()) {
    auto text = read_game_file(o.game);
    if (!text) return text.error();
    game_text = std::move(*text);
  }
  if (o.fen.empty() && o.game.empty()) return bad_argument("give a position (FEN) or a game (--game FILE)");
  ProbeOutcome r;
  {
    auto rules = probe_variant(o, game_text);
    if (!rules) return rules.error();
    r.rules = *rules;
  }
  const Rules& rules = *r.rules;
  const std::filesystem::path root = tables_root(o.tables, rules);
  report.set("variant", std::string(rules.name));
  report.set("folder", root.string());
  if (!o.game.empty()) {
    auto g = parse_game(rules, game_text);
    if (!g) return bad_argument(o.game + ": " + g.message());
    r.game = std::move(*g);
  }
  auto p = probe_position(o, rules, r.game);
  if (!p) return p.error();
  TablebaseOptions topt;
  topt.cache_bytes = std::size_t{16} << 20;
  topt.env = o.env;
  auto opened = open_command_tables(report, rules, root, topt);
  if (!opened) return opened.error();
  r.tb = std::move(*opened);
  const Tablebase& tb = *r.tb;
  r.note = shared_folder_note(rules, root);

  if (!o.rulebook.empty()) {
    auto book = load_rulebook(o.rulebook, rulebook_search_path(exe_dir()), env_or_default(o.env));
    // the rulebook asked for cannot be used (an I/O error is one, exit 1)
    if (!book) return book.code() == ErrorCode::Io ? book.error() : bad_argument(book.message());
    auto counters = probe_counters(o, *book, r.game);
    if (!counters) return counters.error();
    r.counters = std::move(*counters);
    TableDirOptions values;
    values.env = o.env;
    TableDirValues sv(rules, root, values);
    r.verdict = judge(*book, rules, *p, r.counters, sv);
  }
  r.position = report_position(tb, *p, o.pv);
  r.root_status = tb.probe_root(*p, r.root_moves, r.ranking);
  return r;
}

}  // namespace damka::cli
