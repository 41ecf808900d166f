// damka probe: the value of a position and of each of its moves, from tables.
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>

#include "commands.hpp"
#include "common.hpp"
#include "damka/notation.hpp"
#include "damka/position_report.hpp"
#include "damka/probe.hpp"
#include "damka/statutes.hpp"

namespace damka::cli {
namespace {

std::string materials_text(const std::vector<Material>& ms) {
  std::string s;
  for (const Material& m : ms) s += (s.empty() ? "" : ", ") + m.name();
  return s;
}

// "unknown (no table: 2Kv1K)" and the like.
std::string status_text(const Tablebase& tb, const Position& p, ProbeStatus s, Metric m) {
  if (s == ProbeStatus::Unknown) {
    const auto missing = tb.missing_tables(p, m);
    if (!missing.empty())
      return "unknown (no " + std::string(metric_name(m)) + " table for " + materials_text(missing) + " in " +
             tb.directory().string() + ")";
  }
  return std::string(probe_status_name(s));
}

// Moves numbered by full moves: "1. c3-d4 h8-g7 2. ..." or "1... h8-g7 2. ...".
std::string line_text(const Rules& r, Position p, const std::vector<Move>& line) {
  std::string s;
  int number = 1;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const bool first_side = p.side_to_move == r.first_to_move;
    if (first_side) s += (s.empty() ? "" : " ") + std::to_string(number) + ". ";
    else if (i == 0) s += std::to_string(number) + "... ";
    else s += " ";
    s += move_to_string(r, p, line[i]);
    p = apply(p, line[i]);
    if (!first_side) ++number;
  }
  return s;
}

}  // namespace

void register_probe(CLI::App& app, int& rc) {
  auto* cmd = app.add_subcommand("probe", "Look a position up in the tables: its WDL, DTW and DTC, and every move's value");
  struct Opts {
    std::string variant = "russian";
    std::string tables = "data/tables";
    std::string fen;
    bool json = false, pv = false;
    std::string rulebook;
    int moves = 0;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("-v,--variant", o->variant, "Variant: " + variant_names())->capture_default_str();
  cmd->add_option("--tables", o->tables, "Directory of tables (as given to `damka generate -o`)")->capture_default_str();
  cmd->add_flag("--json", o->json, "Print the result as JSON on stdout");
  cmd->add_flag("--pv", o->pv, "Also print the principal variation (the best line to the end of the game)");
  cmd->add_option("-r,--rulebook", o->rulebook,
                  "Also judge the position under this rulebook's draw statutes (e.g. russian-federation)");
  cmd->add_option("--moves", o->moves, "With --rulebook: moves of the stronger side already played since the current "
                                       "balance of forces arose")
      ->capture_default_str()->check(CLI::NonNegativeNumber);
  cmd->add_option("fen", o->fen, "The position (PDN FEN), e.g. W:WKa1,Kc3:BKh8")->required();
  cmd->callback([o, &rc] {
    const Rules* rules = lookup_variant("probe", o->variant);
    if (!rules) {
      rc = 2;
      return;
    }
    auto parsed = parse_fen(*rules, o->fen);
    if (!parsed) {  // the message quotes the FEN (shortened, control characters escaped)
      std::cerr << "damka probe: bad FEN: " << parsed.message() << "\n";
      rc = 2;
      return;
    }
    const Position p = *parsed;
    if (!p.is_valid() || p.pieces(opposite(p.side_to_move)) == 0) {
      std::cerr << "damka probe: invalid position " << quote_for_message(o->fen) << ": "
                << (p.is_valid() ? "the side not to move has no pieces (the game is over)"
                                 : "a man stands on its own promotion row")
                << "\n";
      rc = 2;
      return;
    }
    TablebaseOptions topt;
    topt.cache_bytes = std::size_t{16} << 20;
    // Each problem once (an I/O failure may repeat on every probe that needs the file).
    auto seen = std::make_shared<std::set<std::string>>();
    topt.on_error = [seen](const std::string& message) {
      if (seen->insert(message).second) std::cerr << "damka probe: error: " << message << "\n";
    };
    auto opened = Tablebase::open(*rules, o->tables, topt);
    if (!opened) {
      std::cerr << "damka probe: cannot open tables: " << opened.message()
                << " (build them with `damka generate -v " << rules->name << " -o " << o->tables << "`)\n";
      rc = 1;
      return;
    }
    const Tablebase& tb = **opened;
    if (tb.max_pieces() == 0) {
      std::cerr << "damka probe: no " << rules->name << " tables in " << tb.directory().string()
                << " (build them with `damka generate -v " << rules->name << " -o " << o->tables << "`)\n";
      rc = 1;
      return;
    }

    std::optional<Expected<StatuteVerdict>> verdict;
    if (!o->rulebook.empty()) verdict = judge_with_tables(o->rulebook, *rules, p, o->moves, o->tables, exe_dir());

    const Metric metrics[3] = {Metric::WDL, Metric::DTW, Metric::DTC};
    const PositionReport report = report_position(tb, p, o->pv);
    const ProbeResult* values = report.values;
    const std::vector<MoveValue>& moves = report.moves;
    const ProbeStatus moves_status = report.moves_status;
    const std::vector<Move>& pv = report.pv;
    const ProbeStatus pv_status = report.pv_status;
    const bool all_known = report.all_known();
    const Material material = material_of(p);

    if (o->json) {
      // The same JSON as `damka serve` answers (serve/include/damka/position_report.hpp).
      nlohmann::json j = position_json(tb, report);
      if (verdict) j["statutes"] = statutes_json(o->rulebook, o->moves, *verdict);
      std::cout << j.dump(2) << "\n";
    } else {
      std::printf("%s, %s to move\n", std::string(rules->display_name).c_str(),
                  p.side_to_move == Color::White ? "White" : "Black");
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
      if (moves_status != ProbeStatus::Ok) {
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
          std::printf("\nPrincipal variation (%zu plies): %s\n", pv.size(), line_text(*rules, p, pv).c_str());
      }
    }
    if (verdict && !o->json) {
      if (verdict->ok())
        std::printf("\nStatutes (%s, %d moves played): %s\n", o->rulebook.c_str(), o->moves,
                    (*verdict)->summary.c_str());
      else
        std::cerr << "damka probe: statutes: " << verdict->message() << "\n";
    }
    if (verdict && !verdict->ok()) {
      rc = 1;
      return;
    }
    if (!all_known) {
      const ProbeStatus all[5] = {values[0].status, values[1].status, values[2].status, moves_status, pv_status};
      const auto any = [&](ProbeStatus s) { return std::find(std::begin(all), std::end(all), s) != std::end(all); };
      std::string why = "tables missing";
      if (any(ProbeStatus::IoError)) why = "I/O error: a table could not be read now (not damaged; try again)";
      else if (any(ProbeStatus::Corrupt)) why = "a table is corrupt";
      std::cerr << "damka probe: some values are not known (" << why << "; tables in " << tb.directory().string()
                << ")\n";
      rc = 1;
      return;
    }
    rc = 0;
  });
}

}  // namespace damka::cli
