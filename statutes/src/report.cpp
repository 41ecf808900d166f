// The statute report: every judgeable clause against the tables (the
// analysis; report_text.cpp and report_json.cpp render it).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <sstream>

#include "damka/index.hpp"
#include "damka/material.hpp"
#include "damka/notation.hpp"
#include "damka/slots.hpp"
#include "damka/statutes.hpp"
#include "material_index.hpp"
#include "plain_wdl_store.hpp"

#include <nlohmann/json.hpp>

namespace damka {
namespace {

bool better_saved(const Example& a, const Example& b) { return a.moves_needed > b.moves_needed; }

void keep_saved(std::vector<Example>& v, const Example& e, int n) {
  if (n <= 0) return;
  if (static_cast<int>(v.size()) == n && !better_saved(e, v.back())) return;
  auto it = std::upper_bound(v.begin(), v.end(), e, better_saved);
  v.insert(it, e);
  if (static_cast<int>(v.size()) > n) v.pop_back();
}

// What one clause found in some slots of a material (a chunk, or the whole
// material): what the walk in slot order keeps of them (sums, first
// examples, the first best).
struct Found {
  SideFigures side[2];
  std::optional<Example> any_example, draw_example, longest, shortest_over;
  std::vector<Example> saved;

  // Adds what the slots after these found: the same as one walk over both.
  void merge(const Found& c, int examples) {
    for (int s = 0; s < 2; ++s) side[s].add(c.side[s]);
    if (!any_example) any_example = c.any_example;
    if (!draw_example) draw_example = c.draw_example;
    if (c.longest && (!longest || c.longest->moves_needed > longest->moves_needed)) longest = c.longest;
    for (const Example& e : c.saved) keep_saved(saved, e, examples);
    if (c.shortest_over && (!shortest_over || c.shortest_over->moves_needed < shortest_over->moves_needed))
      shortest_over = c.shortest_over;
  }
};

// Accumulates one clause while the materials are walked: `found` is what
// every material walked so far found, merged in build order (its longest and
// saved examples become the report's; shortest_over, else draw_example, else
// any_example is the one quoted).
struct ClauseWork {
  const Clause* clause = nullptr;
  ClauseReport report;
  Found found;
};

// A material's Found kept across runs (ValueSource::keep_result): the
// figures, and the examples by FEN and codes (their lines and plain
// distances are found at the end of every run: "dtw" holds what the walk
// read, the plain WDL).
nlohmann::json example_json(const Rules& rules, const std::optional<Example>& e) {
  if (!e) return nullptr;
  return {{"fen", to_fen(rules, e->position)}, {"count", e->count.encode()}, {"statute", e->statute.encode()},
          {"dtw", e->dtw.encode()}, {"need", e->moves_needed}};
}

std::optional<Example> example_from(const Rules& rules, const nlohmann::json& j) {
  if (j.is_null()) return std::nullopt;
  auto p = parse_fen(rules, j.at("fen").get<std::string>());
  if (!p) throw std::invalid_argument(p.message());
  return Example{*p, Value::decode(j.at("count").get<std::uint16_t>()), Value::decode(j.at("statute").get<std::uint16_t>()),
                 Value::decode(j.at("dtw").get<std::uint16_t>()), j.at("need").get<int>(), {}};
}

nlohmann::json side_json(const SideFigures& f) {
  return nlohmann::json::array({f.positions, f.white_wins, f.draws, f.black_wins, f.sa_white_wins, f.sa_draws,
                                f.sa_black_wins, f.into_draws, f.over_limit, f.longest, f.longest_needed});
}

SideFigures side_from(const nlohmann::json& j) {
  SideFigures f;
  std::uint64_t* u[] = {&f.positions,     &f.white_wins, &f.draws,        &f.black_wins, &f.sa_white_wins,
                        &f.sa_draws,      &f.sa_black_wins, &f.into_draws, &f.over_limit};
  for (std::size_t i = 0; i < 9; ++i) *u[i] = j.at(i).get<std::uint64_t>();
  f.longest = j.at(9).get<int>();
  f.longest_needed = j.at(10).get<int>();
  return f;
}

nlohmann::json found_json(const Rules& rules, const Found& f) {
  nlohmann::json saved = nlohmann::json::array();
  for (const Example& e : f.saved) saved.push_back(example_json(rules, e));
  return {{"side", {side_json(f.side[0]), side_json(f.side[1])}},
          {"any", example_json(rules, f.any_example)},
          {"draw", example_json(rules, f.draw_example)},
          {"longest", example_json(rules, f.longest)},
          {"shortest_over", example_json(rules, f.shortest_over)},
          {"saved", saved}};
}

Found found_from(const Rules& rules, const nlohmann::json& j) {
  Found f;
  f.side[0] = side_from(j.at("side").at(0));
  f.side[1] = side_from(j.at("side").at(1));
  f.any_example = example_from(rules, j.at("any"));
  f.draw_example = example_from(rules, j.at("draw"));
  f.longest = example_from(rules, j.at("longest"));
  f.shortest_over = example_from(rules, j.at("shortest_over"));
  for (const nlohmann::json& e : j.at("saved")) f.saved.push_back(*example_from(rules, e));
  return f;
}

std::string fen(const Rules& rules, const Position& p) { return to_fen(rules, p); }

std::string materials_list(const std::vector<Material>& ms, std::size_t max_names) {
  if (ms.size() > max_names) return std::to_string(ms.size()) + " materials";
  std::string s;
  for (const Material& m : ms) s += (s.empty() ? "" : ", ") + m.name();
  return s;
}

std::string missing_text(const ClauseReport& r) {
  if (r.missing.empty()) return {};
  std::string s = "tables missing for ";
  bool first = true;
  for (const auto& [pieces, ms] : r.missing) {
    s += (first ? "" : "; ") + std::to_string(pieces) + "-piece materials (" + materials_list(ms, 6) + ")";
    first = false;
  }
  return s;
}

// Whether move m from p ends the clause's count (leaves its balance).
bool ends_count(const Clause& c, const Position& p, const Move& m) {
  if (m.is_capture() || m.promotes) return true;
  const bool man = (p.men[idx(p.side_to_move)] & bit(m.from)) != 0;
  return man && (c.restarts & kExitManMove);
}

// The line the count measures (Example::line): from p, the side to move
// plays the move that keeps its count's value (the winner the quickest way to
// the end of the count, the defender the slowest), until the count ends.
Expected<std::vector<Move>> count_line(const Rulebook& book, const Clause& c, const Position& start,
                                       const ValueSource& values) {
  std::vector<Move> line;
  Position p = start;
  MoveList moves;
  for (int guard = 0; guard < 4096; ++guard) {
    auto v = values.statute_count(book, c, p);
    if (!v) return v.error();
    if (v->wdl == Wdl::Draw || v->plies == 0) return line;
    generate_moves(values.rules(), p, moves);
    std::optional<Move> best;
    bool ends = false;
    for (const Move& m : moves) {
      const Position q = apply(p, m);
      if (ends_count(c, p, m)) {
        auto e = values.statute_value(book, c, q);
        if (!e) return e.error();
        // An exit is worth 1 ply: a winning exit ends a count of 1; a loser's exit at 1 too.
        const bool good = v->wdl == Wdl::Win ? (e->wdl == Wdl::Loss && v->plies == 1)
                                             : (e->wdl == Wdl::Win && v->plies == 1);
        if (good) {
          best = m;
          ends = true;
          break;
        }
        continue;
      }
      auto w = values.statute_count(book, c, q);
      if (!w) return w.error();
      const bool good = v->wdl == Wdl::Win ? (w->wdl == Wdl::Loss && w->plies + 1 == v->plies)
                                           : (w->wdl == Wdl::Win && w->plies + 1 == v->plies);
      if (good) {
        best = m;
        break;
      }
    }
    if (!best) return Error("count line: no move keeps the count at " + to_fen(values.rules(), p));
    line.push_back(*best);
    if (ends) return line;
    p = apply(p, *best);
  }
  return Error("count line: longer than 4096 plies");
}

void finish_clause(ClauseWork& w, const Rules& rules) {
  ClauseReport& r = w.report;
  const Clause& c = r.clause;
  for (const MaterialFigures& mf : r.materials)
    for (int s = 0; s < 2; ++s) r.total[s].add(mf.side[s]);
  const Found& f = w.found;
  if (f.shortest_over) {
    r.example = f.shortest_over;
    r.example_caption = "won in plain play, but the winner needs " + std::to_string(f.shortest_over->moves_needed) +
                        " moves inside the balance, over the limit of " + std::to_string(c.limit) +
                        ": the clause makes it a draw";
  } else if (f.draw_example) {
    r.example = f.draw_example;
    r.example_caption = "a covered position drawn with perfect play";
  } else if (f.any_example) {
    r.example = f.any_example;
    r.example_caption = "a covered position";
  }
  const std::string missing = missing_text(r);
  if (r.positions() == 0) {
    r.verdict = "not judged: no position it covers is in the tables" + (missing.empty() ? "" : " (" + missing + ")");
    return;
  }
  std::string v;
  if (r.into_draws() == 0) {
    v = "the limit suffices: every covered position won in plain play is still won under the clause";
    if (r.longest)
      v += " (longest win: " + std::to_string(r.longest->moves_needed) + " of " + std::to_string(c.limit) +
           " moves, e.g. " + fen(rules, r.longest->position) + ")";
    else
      v += " (no covered position is won)";
  } else {
    v = std::to_string(r.into_draws()) + " positions won in plain play are turned into draws: " +
        std::to_string(r.over_limit()) + " need more than " + std::to_string(c.limit) +
        " moves inside the balance (most: " + std::to_string(r.longest_needed()) + ")";
    const std::uint64_t drawn = r.total[0].exit_drawn() + r.total[1].exit_drawn();
    if (drawn) v += ", " + std::to_string(drawn) + " can only leave the balance into a position the clause draws";
  }
  if (!missing.empty()) v += "; judged on the tables present only, " + missing;
  r.verdict = v;
}

// An example's plain value to the end of the game (DTW): the walk reads
// WDL only, and the distance matters for the few examples quoted.
Status with_distance(const ValueSource& values, Example& e) {
  auto v = values.value(e.position, Metric::DTW);
  if (!v) return v.error();
  e.dtw = *v;
  return {};
}

// Walks every slot of `m` for the clauses `covering` (indices into work):
// the counts computed (or read) first, then the plain values and the counts
// read in slot order through the source (for files, its block caches: no
// table is held whole), in chunks in parallel, each keeping what the walk in
// slot order would keep of its slots, merged in slot order: the same result
// as one walk, for any thread count.
Expected<std::vector<Found>> walk_material(const Rulebook& book, const ValueSource& values, const Material& m,
                                           const std::vector<std::size_t>& covering,
                                           const std::vector<ClauseWork>& work, int examples) {
  std::vector<const StatuteCounts*> counts(covering.size());
  std::vector<ResolvedClause> clauses(covering.size());  // excepts found once, not per position
  for (std::size_t k = 0; k < covering.size(); ++k) {
    clauses[k] = resolve_clause(book, *work[covering[k]].clause);
    auto sc = values.statute_table(book, *work[covering[k]].clause, m);
    if (!sc) return sc.error();
    counts[k] = *sc;
  }
  // Coverage per clause of m as stored (White to move in the slots' own
  // orientation) and of its colour-reversed image: found once where the
  // pieces' counts decide it.
  std::vector<MaterialCoverage> covers;
  for (std::size_t k = 0; k < covering.size(); ++k) {
    covers.emplace_back(clauses[k], m);
    covers.emplace_back(clauses[k], m.flipped());
  }
  const MaterialIndex& index = material_index(m);
  const std::uint64_t n = table_slots(index);
  for (std::size_t k = 0; k < covering.size(); ++k)
    if (counts[k]->slots() != n) return Error("statute counts of " + m.name() + " have the wrong size");
  constexpr std::uint64_t kChunk = std::uint64_t{1} << 15;
  const std::int64_t chunks = static_cast<std::int64_t>((n + kChunk - 1) / kChunk);
  std::vector<std::vector<Found>> found(static_cast<std::size_t>(chunks));
  std::string first_error;
  std::atomic<bool> failed{false};
  auto slots = values.slots(m);
  if (!slots) return slots.error();
  const SlotSource& plain_values = **slots;
  // Capture positions (about half the slots) from the plain WDL of the
  // materials their captures lead into, held in memory: the counts above
  // held the same tables, so they are read no more.
  auto view = values.plain_wdl_view(m);
  if (!view) return view.error();
  const PlainWdlView& held = **view;
#pragma omp parallel
  {
    SlotSource::Range range;
    MoveList moves;
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t ci = 0; ci < chunks; ++ci) {
      if (failed.load(std::memory_order_relaxed)) continue;
      std::vector<Found> local(covering.size());
      std::string why;
      const std::uint64_t begin = static_cast<std::uint64_t>(ci) * kChunk;
      const std::uint64_t end = std::min<std::uint64_t>(n, begin + kChunk);
      // Plain WDL only: the walk needs the winner; an example's distance
      // is found once it is quoted (with_distances).
      if (Status st = plain_values.read(begin, end - begin, {}, range); !st.ok()) why = st.message();
      for (std::uint64_t s = begin; s < end && why.empty(); ++s) {
        const Position p0 = range.positions[s - begin];
        auto plain = range.derived[s - begin] && held.holds_any() ? held.capture_wdl(p0, moves)
                                                                  : plain_values.value(range, s - begin, Metric::WDL);
        if (!plain) {
          why = plain.message();
          break;
        }
        const Value wdl = *plain;  // Example::dtw until with_distance
        // A symmetric material stores White to move only; Black to move is
        // the colour-reversed image, with the same value.
        const int images = m.is_symmetric() ? 2 : 1;
        for (int im = 0; im < images && why.empty(); ++im) {
          const Position p = im == 0 ? p0 : p0.flipped();
          std::optional<Color> winner;
          if (wdl.wdl != Wdl::Draw) winner = wdl.wdl == Wdl::Win ? p.side_to_move : opposite(p.side_to_move);
          for (std::size_t k = 0; k < covering.size(); ++k) {
            Found& w = local[k];
            const Clause& c = *work[covering[k]].clause;
            const auto stronger = covers[2 * k + static_cast<std::size_t>(im)](p, winner);
            if (!stronger) continue;
            SideFigures& f = w.side[idx(p.side_to_move)];
            ++f.positions;
            auto code = counts[k]->code(s);
            if (!code) {
              why = code.message();
              break;
            }
            const Value count = Value::decode(*code);
            const Value sa = limit_count(count, c.limit);
            const int need = count.wdl == Wdl::Draw ? -1 : winner_moves(count);
            const Example e{p, count, sa, wdl, need, {}};
            if (!w.any_example) w.any_example = e;
            if (sa.wdl == Wdl::Draw) ++f.sa_draws;
            else ((sa.wdl == Wdl::Win) == (p.side_to_move == Color::White) ? f.sa_white_wins : f.sa_black_wins)++;
            if (!winner) {
              ++f.draws;
              if (!w.draw_example && p.side_to_move == *stronger) w.draw_example = e;
              continue;
            }
            (*winner == Color::White ? f.white_wins : f.black_wins)++;
            f.longest_needed = std::max(f.longest_needed, need);
            if (sa.wdl != Wdl::Draw) {
              if (need > f.longest) f.longest = need;
              if (!w.longest || need > w.longest->moves_needed) w.longest = e;
              continue;
            }
            ++f.into_draws;
            if (need < 0) continue;  // every winning exit is a statute draw
            ++f.over_limit;
            keep_saved(w.saved, e, examples);
            if (!w.shortest_over || need < w.shortest_over->moves_needed) w.shortest_over = e;
          }
        }
      }
      if (!why.empty()) {
#pragma omp critical(damka_statute_report)
        if (!failed.exchange(true)) first_error = why;
      }
      found[static_cast<std::size_t>(ci)] = std::move(local);
    }
  }
  if (failed) return Error(first_error);
  std::vector<Found> out(covering.size());
  for (const std::vector<Found>& chunk : found)
    for (std::size_t k = 0; k < covering.size(); ++k) out[k].merge(chunk[k], examples);
  return out;
}

}  // namespace

void SideFigures::add(const SideFigures& o) {
  positions += o.positions;
  white_wins += o.white_wins;
  draws += o.draws;
  black_wins += o.black_wins;
  sa_white_wins += o.sa_white_wins;
  sa_draws += o.sa_draws;
  sa_black_wins += o.sa_black_wins;
  into_draws += o.into_draws;
  over_limit += o.over_limit;
  longest = std::max(longest, o.longest);
  longest_needed = std::max(longest_needed, o.longest_needed);
}

Expected<StatuteReport> analyse(const Rulebook& book, const Rules& rules, const ValueSource& values,
                                const ReportOptions& options) {
  if (!book.governs(rules)) {
    std::string list;
    for (const auto& v : book.variants) list += (list.empty() ? "" : ", ") + v;
    return Error("rulebook " + book.name + " governs " + list + ", not " + std::string(rules.name), ErrorCode::InvalidArgument);
  }
  StatuteReport rep;
  rep.book_name = book.name;
  rep.book_title = book.title;
  rep.book_source = book.source;
  rep.book_counting = book.counting;
  rep.variant = std::string(rules.name);
  rep.tables = values.describe();
  rep.max_pieces = options.max_pieces;
  rep.only = options.only;

  std::vector<ClauseWork> work;
  for (const Clause& c : book.clauses) {
    if (!c.judgeable) {
      rep.not_judgeable.push_back(c);
      continue;
    }
    ClauseWork w;
    w.clause = &c;
    w.report.clause = c;
    work.push_back(std::move(w));
  }

  // Every material any clause may cover, in build order.
  std::vector<Material> order = build_order(std::max(2, options.max_pieces));
  if (options.only) {
    if (!options.only->is_canonical())
      return Error("material " + options.only->name() + " is not canonical (name it as its table is named)", ErrorCode::InvalidArgument);
    if (std::find(order.begin(), order.end(), *options.only) == order.end())
      return Error("material " + options.only->name() + " has more pieces than the " +
                   std::to_string(options.max_pieces) + " considered, or a side without pieces", ErrorCode::InvalidArgument);
    order = {*options.only};
  }
  // What there is to judge, for the progress.
  const auto start = std::chrono::steady_clock::now();
  auto covered = [&](const Material& m) {
    for (const ClauseWork& w : work)
      if (clause_matches_material(book, *w.clause, m)) return true;
    return false;
  };
  std::uint64_t total = 0, done = 0;
  for (const Material& m : order)
    if (covered(m) && values.has_table(m)) total += table_slots(m);
  auto progress = [&](const Material& m) {
    if (options.progress)
      options.progress(m, done, total,
                       std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  };
  // The key of a material's kept figures (they depend on the book and on
  // how many examples are listed).
  const std::string kept_what = "report " + book.name + " examples " + std::to_string(options.examples);
  for (const Material& m : order) {
    std::vector<std::size_t> covering;
    for (std::size_t i = 0; i < work.size(); ++i)
      if (clause_matches_material(book, *work[i].clause, m)) covering.push_back(i);
    if (covering.empty()) continue;
    if (!values.has_table(m)) {
      for (std::size_t i : covering) work[i].report.missing[m.pieces()].push_back(m);
      continue;
    }
    progress(m);
    done += table_slots(m);
    rep.largest_table = std::max(rep.largest_table, m.pieces());
    // What each covering clause finds in the material: kept by an earlier
    // run (TableDirOptions::keep_dir), or walked now.
    std::vector<Found> mine(covering.size());
    auto kept = values.kept_result(m, kept_what);
    if (!kept) return kept.error();
    bool recalled = false;
    if (*kept) {
      try {
        const nlohmann::json j = nlohmann::json::parse(**kept);
        for (std::size_t k = 0; k < covering.size(); ++k)
          mine[k] = found_from(rules, j.at("clauses").at(work[covering[k]].clause->id));
        recalled = true;
      } catch (const std::exception&) {  // another book's clauses, or damaged: walked again
        mine.assign(covering.size(), Found{});
      }
    }
    if (!recalled) {
      auto walked = walk_material(book, values, m, covering, work, options.examples);
      if (!walked) return walked.error();
      mine = std::move(*walked);
      nlohmann::json clauses = nlohmann::json::object();
      for (std::size_t k = 0; k < covering.size(); ++k)
        clauses[work[covering[k]].clause->id] = found_json(rules, mine[k]);
      if (Status st = values.keep_result(m, kept_what, nlohmann::json{{"clauses", clauses}}.dump()); !st.ok())
        return st.error();
    }
    for (std::size_t k = 0; k < covering.size(); ++k) {
      const Found& c = mine[k];
      ClauseWork& w = work[covering[k]];
      MaterialFigures fig;
      fig.material = m;
      fig.side[0] = c.side[0];
      fig.side[1] = c.side[1];
      w.found.merge(c, options.examples);
      if (fig.side[0].positions + fig.side[1].positions > 0) w.report.materials.push_back(fig);
    }
  }
  for (ClauseWork& w : work) {
    w.report.longest = std::move(w.found.longest);
    w.report.saved = std::move(w.found.saved);
    // The lines of the quoted positions.
    // The examples quoted: their plain distances (the walk kept WDL only).
    for (std::optional<Example>* e : {&w.report.longest, &w.found.shortest_over, &w.found.draw_example, &w.found.any_example})
      if (*e)
        if (Status st = with_distance(values, **e); !st.ok()) return st.error();
    for (Example& e : w.report.saved)
      if (Status st = with_distance(values, e); !st.ok()) return st.error();
    for (std::optional<Example>* e : {&w.report.longest, &w.found.shortest_over, &w.found.draw_example, &w.found.any_example})
      if (*e && (**e).count.wdl != Wdl::Draw) {
        auto line = count_line(book, *w.clause, (**e).position, values);
        if (!line) return line.error();
        (**e).line = std::move(*line);
      }
    for (Example& e : w.report.saved) {
      auto line = count_line(book, *w.clause, e.position, values);
      if (!line) return line.error();
      e.line = std::move(*line);
    }
    finish_clause(w, rules);
    rep.clauses.push_back(std::move(w.report));
  }
  return rep;
}

}  // namespace damka
