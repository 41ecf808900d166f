// damka probe: the value of a position and of each of its moves, from tables.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>

#include "commands.hpp"
#include "common.hpp"
#include "damka/notation.hpp"
#include "damka/probe.hpp"
#include "damka/statutes.hpp"
#include "damka/table_scan.hpp"
#include "damka/position_report.hpp"
#include "damka/statutes_json.hpp"

namespace damka::cli {
namespace {

// "unknown (no wdl table for 2Kv1K in T/russian)" and the like.
std::string status_text(const Tablebase& tb, const Position& p, ProbeStatus s, Metric m) {
  if (s == ProbeStatus::Unknown) return "unknown (" + probe_status_error(tb, p, s, m).message() + ")";
  if (s == ProbeStatus::Corrupt) return "unknown (table refused: " + probe_status_error(tb, p, s, m).message() + ")";
  return std::string(probe_status_name(s));
}

}  // namespace

void register_probe(CLI::App& app, int& rc) {
  auto* cmd = app.add_subcommand("probe", "Look a position up in the tables: its WDL, DTW and DTC, and every move's value");
  struct Opts {
    std::string variant;
    std::string tables = "data/tables";
    std::string fen;
    bool json = false, pv = false;
    std::string rulebook;
    std::string moves;  // CLAUSE=N,...
    std::string game;   // a PDN game or move list
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("-v,--variant", o->variant,
                  "Variant (default: the one with tables in the folder that reads the FEN): " + variant_names());
  cmd->add_option("--tables", o->tables, "Directory of tables (as given to `damka generate -o`, or a variant subfolder)")
      ->capture_default_str();
  cmd->add_flag("--json", o->json, "Print the result as JSON on stdout");
  cmd->add_flag("--pv", o->pv, "Also print the principal variation (the best line to the end of the game)");
  cmd->add_option("-r,--rulebook", o->rulebook,
                  "Also judge the position under this rulebook's draw statutes (e.g. russian-federation)");
  cmd->add_option("--moves", o->moves,
                  "With --rulebook: moves of the stronger side already played under each clause's count, e.g. "
                  "2.1.9.1.5=12,2.1.9.1.8=3 (a clause number, or an entry id such as 2.1.9.1.5/4-5; clauses not "
                  "named: 0)");
  cmd->add_option("--game", o->game,
                  "With --rulebook: a PDN game or move list (file); the position is where it ends and each clause's "
                  "count is counted from the game (--moves overrides a clause's count)");
  cmd->add_option("fen", o->fen, "The position (PDN FEN), e.g. W:WKa1,Kc3:BKh8 (optional with --game)");
  cmd->callback([o, &rc] {
    Report report("probe", o->json);
    report.set("folder", o->tables);
    if ((!o->moves.empty() || !o->game.empty()) && o->rulebook.empty()) {
      rc = report.fail(2, std::string(o->moves.empty() ? "--game" : "--moves") +
                              " counts moves under a rulebook's clauses: give the rulebook with --rulebook (e.g. "
                              "--rulebook russian-federation)");
      return;
    }
    std::string game_text;
    if (!o->game.empty()) {
      // At most 1 MiB and a byte is read: /dev/zero or a huge file is refused, not swallowed.
      constexpr std::size_t kMaxGame = std::size_t{1} << 20;
      std::ifstream in(o->game, std::ios::binary);
      if (!in) {
        rc = report.fail(2, "cannot read the game file " + o->game);
        return;
      }
      game_text.resize(kMaxGame + 1);
      in.read(game_text.data(), static_cast<std::streamsize>(game_text.size()));
      if (in.bad()) {
        rc = report.fail(2, "cannot read the game file " + o->game);
        return;
      }
      game_text.resize(static_cast<std::size_t>(in.gcount()));
      if (game_text.size() > kMaxGame) {
        rc = report.fail(2, "the game file " + o->game + " is larger than 1 MiB");
        return;
      }
    }
    if (o->fen.empty() && o->game.empty()) {
      rc = report.fail(2, "give a position (FEN) or a game (--game FILE)");
      return;
    }
    const Rules* rules = nullptr;
    if (!o->variant.empty()) {
      if (!(rules = lookup_variant(report, o->variant, rc))) return;
    } else {
      // The variant the folder's headers name and the FEN can be read in.
      auto scan = scan_table_folder(o->tables);
      if (!scan) {
        rc = report.fail(1, "cannot open tables: " + scan.message());
        return;
      }
      // With --rulebook, only the variants it governs (a Russian game read
      // as English would fail later).
      std::optional<Rulebook> book;
      if (!o->rulebook.empty())
        if (auto b = load_rulebook(o->rulebook, rulebook_search_path(exe_dir())); b) book = std::move(*b);
      const auto governed = [&](const Rules& r) { return !book || book->governs(r); };
      auto chosen = o->fen.empty()
                        ? choose_variant("", *scan,
                                         [&](const Rules& r) { return governed(r) && parse_game(r, game_text).ok(); },
                                         "the game in " + o->game)
                        : choose_variant("", *scan,
                                         [&](const Rules& r) { return governed(r) && parse_fen(r, o->fen).ok(); },
                                         "the FEN '" + o->fen + "'");
      if (!chosen) {
        rc = report.fail(2, chosen.message());
        return;
      }
      rules = *chosen;
    }
    const std::filesystem::path root = tables_root(o->tables, *rules);
    report.set("variant", std::string(rules->name));
    report.set("folder", root.string());
    std::optional<GameRecord> game;
    if (!o->game.empty()) {
      auto g = parse_game(*rules, game_text);
      if (!g) {
        rc = report.fail(2, o->game + ": " + g.message());
        return;
      }
      game = std::move(*g);
    }
    Position p;
    if (!o->fen.empty()) {
      auto parsed = parse_fen(*rules, o->fen);
      if (!parsed) {
        // The message quotes the FEN (shortened, control characters escaped).
        rc = report.fail(2, "bad FEN: " + parsed.message());
        return;
      }
      p = *parsed;
      if (game && !(game->final_position() == p)) {
        rc = report.fail(2, "the FEN is not where the game in " + o->game + " ends (" +
                                to_fen(*rules, game->final_position()) + "); give one of them");
        return;
      }
    } else {
      p = game->final_position();
    }
    const std::string fen_text = to_fen(*rules, p);
    if (const char* why = unprobeable_reason(p)) {
      rc = report.fail(2, "invalid position " + quote_for_message(fen_text) + ": " + why);
      return;
    }
    TablebaseOptions topt;
    topt.cache_bytes = std::size_t{16} << 20;
    auto opened = open_command_tables(report, *rules, root, topt, rc);
    if (!opened) return;
    const Tablebase& tb = *opened;
    const std::string note = shared_folder_note(*rules, root);

    std::optional<Expected<StatuteVerdict>> verdict;
    StatuteCounters counters;
    if (!o->rulebook.empty()) {
      auto book = load_rulebook(o->rulebook, rulebook_search_path(exe_dir()));
      if (!book) {
        rc = report.fail(2, book.message());
        return;
      }
      if (game) counters = count_game(*book, *game);
      if (!o->moves.empty()) {
        auto given = parse_statute_counters(*book, o->moves);
        if (!given) {
          rc = report.fail(2, "--moves: " + given.message());
          return;
        }
        for (const auto& [k, n] : *given) counters[k] = n;
      }
      TableDirValues sv(*rules, root);
      verdict = judge(*book, *rules, p, counters, sv);
    }
    Json counters_json = Json::object();
    for (const auto& [k, n] : counters) counters_json[k] = n;

    const Metric metrics[3] = {Metric::WDL, Metric::DTW, Metric::DTC};
    const PositionReport pos = report_position(tb, p, o->pv);
    const ProbeResult* values = pos.values;
    const std::vector<MoveValue>& moves = pos.moves;
    const ProbeStatus moves_status = pos.moves_status;
    const std::vector<Move>& pv = pos.pv;
    const ProbeStatus pv_status = pos.pv_status;
    const bool all_known = pos.all_known();
    const Material material = material_of(p);
    // The moves that keep the value (like Fathom's tb_probe_root): known
    // from WDL tables alone, ranked by DTW or DTC where present; shown when
    // the full list (which needs DTW everywhere) is not known.
    std::vector<RootMove> root_moves;
    RootRanking ranking = RootRanking::None;
    const ProbeStatus root_status = tb.probe_root(p, root_moves, ranking);

    if (o->json) {
      // The same JSON as `damka serve` answers (serve/include/damka/position_report.hpp),
      // inside the CLI's object (command, variant, folder).
      Json j = report.object();
      const Json position = position_json(tb, pos);
      for (const auto& [k, v] : position.items()) j[k] = v;
      if (!note.empty()) j["note"] = note;
      // Without the full move list (DTW missing), the value-keeping moves.
      if (moves_status != ProbeStatus::Ok && root_status == ProbeStatus::Ok) {
        // Keys sorted, as before (nlohmann::json).
        j["root_moves"] = nlohmann::json(root_moves_json(*rules, p, root_moves));
        j["root_ranking"] = root_ranking_name(ranking);
      }
      if (verdict) {
        j["statutes"] = nlohmann::json(statutes_json(o->rulebook, 0, *verdict));  // keys sorted
        j["statutes"].erase("moves_played");
        j["statutes"]["counters"] = counters_json;
        if (game) j["statutes"]["game_moves"] = game->moves.size();
      }
      if (const auto errors = tb.errors(); !errors.empty()) j["errors"] = errors;
      if (!all_known) {
        const auto missing = tb.missing_tables(p, Metric::DTW);
        nlohmann::json arr = nlohmann::json::array();
        for (const Material& m : missing) arr.push_back(m.name());
        j["missing_tables"] = arr;
        j["error"] = "some values are not known (tables missing or refused in " + tb.directory().string() + ")";
        j["exit_code"] = 1;
      } else if (verdict && !verdict->ok()) {
        j["error"] = "statutes: " + verdict->message();
        j["exit_code"] = 1;
      }
      std::cout << j.dump(2) << "\n";
    } else {
      std::printf("%s, %s to move\n", std::string(rules->display_name).c_str(),
                  color_title(p.side_to_move));
      if (!note.empty()) std::printf("%s\n", note.c_str());
      std::printf("%s\n", board_diagram(*rules, p).c_str());
      std::printf("FEN       %s\n", to_fen(*rules, p).c_str());
      std::printf("Material  %s\n", material.name().c_str());
      const char* labels[3] = {"WDL", "DTW", "DTC"};
      for (int i = 0; i < 3; ++i) {
        std::string text = values[i].ok() ? describe_value(values[i].value, metrics[i])
                                          : status_text(tb, p, values[i].status, metrics[i]);
        if (i == 2 && values[i].ok() && values[i].value.wdl != Wdl::Draw)
          text += " (to the next capture or promotion)";
        std::printf("%-9s %s\n", labels[i], text.c_str());
      }
      if (moves_status != ProbeStatus::Ok && root_status == ProbeStatus::Ok && !root_moves.empty()) {
        // No DTW for every move: the moves that keep the value, from WDL.
        std::printf("\nMoves: %s\n", status_text(tb, p, moves_status, Metric::DTW).c_str());
        std::printf("%-24s %s\n", "Moves keeping the value", ranking == RootRanking::None ? "(unranked: WDL only)"
                                                                : ranking == RootRanking::DTW ? "(by DTW)"
                                                                                              : "(by DTC)");
        for (const RootMove& r : root_moves) {
          std::string dist;
          if (r.dtw_known) dist += "DTW " + describe_value(r.dtw, Metric::DTW);
          if (r.dtc_known) dist += std::string(dist.empty() ? "" : ", ") + "DTC " + describe_value(r.dtc, Metric::DTC);
          std::printf("  %-22s %-6s %s\n", move_to_string(*rules, p, r.move).c_str(),
                      describe_value(r.wdl, Metric::WDL).c_str(), dist.c_str());
        }
      } else if (moves_status != ProbeStatus::Ok) {
        std::printf("\nMoves: %s\n", status_text(tb, p, moves_status, Metric::DTW).c_str());
      } else if (moves.empty()) {
        std::printf("\nNo legal moves: the side to move has lost.\n");
      } else {
        std::printf("\n%-24s %-20s %s\n", "Moves (best first)", "DTW", "DTC");
        for (const MoveValue& m : moves)
          std::printf("  %-22s %-20s %s\n", move_to_string(*rules, p, m.move).c_str(),
                      describe_value(m.dtw, Metric::DTW).c_str(),
                      m.dtc_known ? describe_value(m.dtc, Metric::DTC).c_str() : "unknown");
      }
      if (o->pv) {
        if (pv_status != ProbeStatus::Ok)
          std::printf("\nPrincipal variation: %s\n", status_text(tb, p, pv_status, Metric::DTW).c_str());
        else if (pv.empty() && values[1].ok() && values[1].value.wdl == Wdl::Draw)
          std::printf("\nPrincipal variation: none (a draw never ends)\n");
        else
          std::printf("\nPrincipal variation (%zu plies): %s\n", pv.size(), line_to_string(*rules, p, pv).c_str());
      }
    }
    if (verdict && !o->json) {
      if (verdict->ok())
      {
        std::string played;
        for (const auto& [k, n] : counters) played += (played.empty() ? "" : ", ") + k + "=" + std::to_string(n);
        std::printf("\nStatutes (%s; moves played: %s): %s\n", o->rulebook.c_str(),
                    played.empty() ? "none" : played.c_str(), (*verdict)->summary.c_str());
        for (const ClauseJudgement& cj : (*verdict)->clauses)
          std::printf("  %-16s limit %2d, played %2d, needs %s: %s\n", cj.id.c_str(), cj.limit, cj.moves_played,
                      cj.moves_needed < 0 ? "-" : std::to_string(cj.moves_needed).c_str(),
                      !cj.winner ? "no win to judge" : cj.in_time ? "in time" : "a draw under this clause");
      }
      else
        report.warn("statutes: " + verdict->message());
    }
    if (verdict && !verdict->ok()) {
      rc = 1;
      return;
    }
    if (!all_known) {
      const ProbeStatus all[5] = {values[0].status, values[1].status, values[2].status, moves_status, pv_status};
      const auto any = [&](ProbeStatus st) { return std::find(std::begin(all), std::end(all), st) != std::end(all); };
      std::string why = "tables missing";
      if (any(ProbeStatus::IoError)) why = "I/O error: a table could not be read now (not damaged; try again)";
      else if (any(ProbeStatus::Corrupt)) why = "a table is refused as damaged or foreign";
      report.warn("some values are not known (" + why + "; tables in " + tb.directory().string() + ")");
      rc = 1;
      return;
    }
    rc = 0;
  });
}

}  // namespace damka::cli
