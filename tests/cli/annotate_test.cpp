// damka annotate and its library (damka/annotate.hpp) on Russian tables of
// 3 kings vs 1 king (and what it converts into), built by the real `damka`:
// values from the value oracle, result-changing moves with the moves that kept
// the value, the move where a draw statute ends the game, PDN that reads back,
// JSON, broken games reported and skipped, and the speed on 1,000 games.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <string>

#include "damka/annotate.hpp"
#include "damka/notation.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using namespace damka;

struct Outcome {
  int code;
  std::string out;
};

Outcome run(const std::string& args, bool with_stderr = true) {
  const std::string cmd = std::string(DAMKA_EXE) + " " + args + (with_stderr ? " 2>&1" : " 2>/dev/null");
  FILE* f = popen(cmd.c_str(), "r");
  if (!f) return {-1, "popen failed"};
  std::string out;
  std::array<char, 4096> buf;
  while (std::size_t n = std::fread(buf.data(), 1, buf.size(), f)) out.append(buf.data(), n);
  const int status = pclose(f);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

const Rules& russian() { return rules_of(Variant::Russian); }

// White lets the win go (1. c3-b4), Black takes into 1 king vs 1 king, whose
// 5-move count (2.1.9.1.5) runs out at White's 5th move (6. a5-c7), then
// White loses a drawn ending (7. c7-g3).
const char* kGame =
    "[Event \"errors\"]\n[FEN \"W:WKa1,Kc3,Ke5:BKh8\"]\n"
    "1. c3-b4 {a comment} h8:a5 (1... h8-d4 2. e5:c3) 2. a1-b2 $2 a5-b6 3. b2-a3 b6-a7 4. a3-b4 a7-b8\n"
    "5. b4-a5 b8-a7 6. a5-c7 a7-b8 7. c7-g3 1/2-1/2\n";

class Annotate : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = fs::temp_directory_path() / ("damka-annotate-test-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    const Outcome g = run("generate -v russian -n 4 -m 3Kv1K -t 2 -o " + dir_.string());
    ASSERT_EQ(g.code, 0) << g.out;
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }
  static std::string write(const std::string& name, const std::string& text) {
    const fs::path p = dir_ / name;
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
  }
  static std::unique_ptr<Tablebase> open() {
    auto tb = Tablebase::open(russian(), dir_);
    EXPECT_TRUE(tb.ok()) << tb.message();
    return tb ? std::move(*tb) : nullptr;
  }
  static fs::path dir_;
};
fs::path Annotate::dir_;

// The oracle, asked directly: the value of p for its side to move.
Wdl wdl_of(const Tablebase& tb, const Position& p) {
  const ProbeResult r = tb.probe(p, Metric::WDL);
  EXPECT_TRUE(r.ok()) << to_fen(russian(), p);
  return r.value.wdl;
}

TEST_F(Annotate, ValuesErrorsWithTheMovesThatKeepTheValueAndStatuteEnds) {
  auto tb = open();
  ASSERT_TRUE(tb);
  const Rulebook book = *load_rulebook("russian-federation", rulebook_search_path());
  const auto games = read_pdn(kGame);
  ASSERT_EQ(games.size(), 1u);
  AnnotateOptions opt;
  opt.rulebook = &book;
  const AnnotatedGame a = annotate_game(*tb, games[0], 1, opt);
  ASSERT_EQ(a.error, "");
  ASSERT_EQ(a.moves.size(), 13u);
  EXPECT_TRUE(a.start.known);
  EXPECT_EQ(a.start.wdl, Wdl::Win);
  EXPECT_EQ(a.start.dtw, 3);
  // Every value is the oracle's, and an error is exactly a move after which
  // the mover's result is worse than before it.
  Position p = *parse_fen(russian(), "W:WKa1,Kc3,Ke5:BKh8");
  std::vector<std::size_t> errors;
  for (std::size_t i = 0; i < a.moves.size(); ++i) {
    const AnnotatedMove& m = a.moves[i];
    auto move = parse_move(russian(), p, m.move);
    ASSERT_TRUE(move.ok()) << m.move;
    const Position next = apply(p, *move);
    EXPECT_EQ(m.fen_after, to_fen(russian(), next));
    ASSERT_TRUE(m.after.known) << i;
    EXPECT_EQ(m.after.wdl, wdl_of(*tb, next)) << i;
    const int before = static_cast<int>(wdl_of(*tb, p)), after = -static_cast<int>(m.after.wdl);
    EXPECT_EQ(m.error, after < before) << i;
    if (m.error) {
      errors.push_back(i);
      // The moves kept are exactly the legal moves after which the mover keeps its result.
      MoveList legal;
      generate_moves(russian(), p, legal);
      std::set<std::string> expected;
      for (const Move& x : legal)
        if (-static_cast<int>(wdl_of(*tb, apply(p, x))) == before) expected.insert(move_to_string(russian(), p, x));
      EXPECT_EQ(std::set<std::string>(m.keeping.begin(), m.keeping.end()), expected) << i;
      EXPECT_FALSE(expected.count(m.move));
    }
    p = next;
  }
  EXPECT_EQ(errors, (std::vector<std::size_t>{0, 12}));
  EXPECT_EQ(a.moves[0].before_result, Wdl::Win);
  EXPECT_EQ(a.moves[0].after_result, Wdl::Draw);
  EXPECT_EQ(a.moves[12].before_result, Wdl::Draw);
  EXPECT_EQ(a.moves[12].after_result, Wdl::Loss);
  EXPECT_EQ(a.moves[12].number, "7.");
  EXPECT_EQ(a.moves[1].number, "1...");
  // 2.1.9.1.5 (2 and 3 pieces: 5 moves) counts from 1... h8:a5: White's 5th move is 6. a5-c7 (ply 10).
  ASSERT_EQ(a.statute_ends.size(), 1u);
  EXPECT_EQ(a.statute_ends[0].clause, "2.1.9.1.5");
  EXPECT_EQ(a.statute_ends[0].limit, 5);
  EXPECT_EQ(a.statute_ends[0].ply, 10u);
  EXPECT_EQ(a.moves[10].statute_ends, (std::vector<std::size_t>{0}));
  // Without the rulebook: no statute ends.
  EXPECT_TRUE(annotate_game(*tb, games[0], 1, AnnotateOptions{}).statute_ends.empty());
}

TEST_F(Annotate, PdnThatReadsBackAndJson) {
  const std::string file = write("game.pdn", kGame);
  const Outcome r = run("annotate --tables " + dir_.string() + " --rulebook russian-federation " + file, false);
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(has(r.out, "[Event \"errors\"]")) << r.out;
  EXPECT_TRUE(has(r.out, "{start: White wins in 3 plies} 1. c3-b4?")) << r.out;
  EXPECT_TRUE(has(r.out, "error: win -> draw; moves keeping the win: a1-b2")) << r.out;
  EXPECT_TRUE(has(r.out, "7. c7-g3?")) << r.out;
  EXPECT_TRUE(has(r.out, "draw by russian-federation 2.1.9.1.5: White's 5th move under its count (limit 5 moves)"))
      << r.out;
  EXPECT_TRUE(has(r.out, "1/2-1/2")) << r.out;
  // The annotated PDN is PDN: the same game reads back from it.
  const auto back = read_pdn(r.out);
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].error, "");
  EXPECT_EQ(back[0].tag("FEN"), "W:WKa1,Kc3,Ke5:BKh8");
  EXPECT_EQ(back[0].moves, read_pdn(kGame)[0].moves);
  EXPECT_EQ(back[0].result, "1/2-1/2");

  const Outcome j = run("annotate --json --tables " + dir_.string() + " --rulebook russian-federation " + file, false);
  ASSERT_EQ(j.code, 0) << j.out;
  const json d = json::parse(j.out);
  EXPECT_EQ(d["command"], "annotate");
  EXPECT_EQ(d["variant"], "russian");
  EXPECT_EQ(d["games_annotated"], 1);
  EXPECT_EQ(d["errors_marked"], 2);
  const json& g = d["games"][0];
  EXPECT_EQ(g["start"]["result"], "win");
  EXPECT_EQ(g["start"]["dtw"], 3);
  EXPECT_EQ(g["moves"][0]["move"], "c3-b4");
  EXPECT_EQ(g["moves"][0]["error"]["from"], "win");
  EXPECT_EQ(g["moves"][0]["error"]["to"], "draw");
  EXPECT_EQ(g["moves"][1]["value"]["side_to_move"], "white");
  EXPECT_EQ(g["statute_ends"][0]["clause"], "2.1.9.1.5");
  EXPECT_EQ(g["statute_ends"][0]["number"], "6.");
  EXPECT_EQ(g["statute_ends"][0]["move"], "a5-c7");
}

TEST_F(Annotate, BrokenGamesAreReportedAndSkippedNeverACrash) {
  std::string text = kGame;
  text += "\n[Event \"illegal\"]\n[FEN \"W:WKa1,Kc3,Ke5:BKh8\"]\n1. a1-c3 *\n";   // line 6
  text += "[Event \"bad fen\"]\n[FEN \"W:WKz9:BKh8\"]\n1. a1-b2 *\n";             // line 9
  text += "[Event \"stray\"]\n1. c3-d4 ) *\n";                                      // line 12
  text += "[Event \"out of the tables\"]\n1. c3-d4 f6-g5 *\n";                      // line 14: annotated, no values
  text += "[Event \"binary\"]\n\x01\x02\xff\xfe garbage *\n";                       // line 16
  text += "[Event \"open comment\"]\n1. c3-d4 {never closed\n";                     // line 18
  const std::string file = write("broken.pdn", text);
  const Outcome r = run("annotate --tables " + dir_.string() + " " + file);
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_TRUE(has(r.out, "game 2 (line 6) skipped: game: move 1 'a1-c3' is not legal")) << r.out;
  EXPECT_TRUE(has(r.out, "game 3 (line 9) skipped: game: bad FEN tag")) << r.out;
  EXPECT_TRUE(has(r.out, "game 4 (line 12) skipped: game: line 13: a ')' that closes nothing")) << r.out;
  EXPECT_TRUE(has(r.out, "game 6 (line 16) skipped")) << r.out;
  EXPECT_TRUE(has(r.out, "game 7 (line 18) skipped: game: line 19: a comment '{' is not closed")) << r.out;
  EXPECT_TRUE(has(r.out, "2 of 7 games annotated (5 skipped)")) << r.out;
  EXPECT_TRUE(has(r.out, "[Event \"out of the tables\"]\n[Annotator \"damka\"]\n\n1. c3-d4 f6-g5 *")) << r.out;
  int code = 0;
  const Outcome j = run("annotate --json --tables " + dir_.string() + " " + file, false);
  code = j.code;
  EXPECT_EQ(code, 1);
  const json d = json::parse(j.out);
  EXPECT_EQ(d["games_read"], 7);
  EXPECT_EQ(d["games_skipped"], 5);
  EXPECT_EQ(d["exit_code"], 1);
  EXPECT_EQ(d["skipped"][0]["line"], 6);
  EXPECT_EQ(d["games"][4]["moves"][0]["value"], nullptr);
  // Bad arguments and files.
  EXPECT_EQ(run("annotate --tables " + dir_.string() + " " + (dir_ / "absent.pdn").string()).code, 2);
  EXPECT_EQ(run("annotate --tables " + dir_.string() + " " + dir_.string()).code, 2);
  EXPECT_EQ(run("annotate --tables " + dir_.string() + " --rulebook no-such-book " + file).code, 2);
  EXPECT_EQ(run("annotate --tables " + dir_.string() + " " + write("empty.pdn", "  {just a comment}\n")).code, 1);
  const Outcome help = run("annotate --help");
  EXPECT_EQ(help.code, 0);
  EXPECT_TRUE(has(help.out, "--rulebook")) << help.out;
}

// Verdict summaries say "1 move", "only 1 is left" (and never "1 moves",
// "1 are left"): positions of 3 kings vs a king on the main road, judged with
// counts up to 2.1.9.1.7's limit, until both wordings have been seen.
using ThreeKingsTables = Annotate;
TEST_F(ThreeKingsTables, VerdictSummariesCountInTheSingularForOne) {
  const Rulebook book = *load_rulebook("russian-federation", rulebook_search_path());
  TableDirValues values(russian(), dir_);
  bool one_move = false, one_left = false;
  for (int a = 0; a < kNumSquares && !(one_move && one_left); a += 3)
    for (int b = a + 1; b < kNumSquares && !(one_move && one_left); b += 2)
      for (int c = b + 1; c < kNumSquares && !(one_move && one_left); c += 5) {
        Position p;
        p.kings[0] = bit(a) | bit(b) | bit(c);
        p.kings[1] = bit(31);  // h8, on the main road
        if (p.kings[0] & p.kings[1]) continue;
        for (int played = 0; played <= 5; ++played) {
          auto v = judge(book, russian(), p, played, values);
          ASSERT_TRUE(v.ok()) << v.message();
          const std::string& s = v->summary;
          EXPECT_FALSE(has(s, " 1 moves") || has(s, " 1 are ") || has(s, " 1 plies")) << s;
          one_move = one_move || has(s, "needs 1 move (");
          one_left = one_left || has(s, "only 1 is left");
        }
      }
  EXPECT_TRUE(one_move);
  EXPECT_TRUE(one_left);
}

// The README's example: its output block is what the program prints for its input block.
std::string readme_block_after(const std::string& readme, const std::string& marker) {
  std::size_t at = readme.find(marker);
  if (at == std::string::npos) return "(marker " + marker + " not found)";
  at = readme.find("```\n", at);
  const std::size_t end = readme.find("```\n", at + 4);
  return readme.substr(at + 4, end - at - 4);
}

TEST_F(Annotate, ReadmeExampleIsTheProgramsOutput) {
  std::ifstream in(std::string(DAMKA_SOURCE_DIR) + "/README.md");
  const std::string readme((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string input = readme_block_after(readme, "<!-- annotate-example-input");
  const std::string output = readme_block_after(readme, "<!-- annotate-example-output");
  ASSERT_TRUE(has(input, "[FEN")) << input;
  const std::string file = write("readme.pdn", input);
  const Outcome r = run("annotate --tables " + dir_.string() + " --rulebook russian-federation " + file, false);
  ASSERT_EQ(r.code, 0) << r.out;
  // The program ends a game with an empty line; the README's block leaves it out.
  EXPECT_EQ(r.out, output + "\n");
}

// The README's `damka info --stats` example: each of its lines about 3 kings
// vs a king and the smaller materials is a line of the program's output (a
// line cut with "..." by its parts, in order); lines about 5 pieces are left
// out (the test tables stop at 4).
TEST_F(ThreeKingsTables, ReadmeInfoStatsExampleIsTheProgramsOutput) {
  std::ifstream in(std::string(DAMKA_SOURCE_DIR) + "/README.md");
  const std::string readme((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string command = "$ damka info --stats data/tables -t 2\n";
  const std::size_t start = readme.find(command);
  ASSERT_NE(start, std::string::npos) << "the README's info --stats example was not found";
  const std::string example =
      readme.substr(start + command.size(), readme.find("```", start) - start - command.size());
  const Outcome r = run("info --stats -t 2 " + dir_.string(), false);
  ASSERT_EQ(r.code, 0) << r.out;
  auto rstrip = [](std::string x) {
    while (!x.empty() && x.back() == ' ') x.pop_back();
    return x;
  };
  std::vector<std::string> lines;
  for (std::size_t at = 0, nl; (nl = r.out.find('\n', at)) != std::string::npos; at = nl + 1)
    lines.push_back(rstrip(r.out.substr(at, nl - at)));
  int checked = 0;
  for (std::size_t at = 0, nl; (nl = example.find('\n', at)) != std::string::npos; at = nl + 1) {
    const std::string line = rstrip(example.substr(at, nl - at));
    if (line == "..." || has(line, "5 pieces") || has(line, "3Mv1K1M") || line.empty()) continue;
    std::vector<std::string> parts;
    for (std::size_t p = 0;;) {
      const std::size_t cut = line.find(" ... ", p);
      parts.push_back(line.substr(p, cut == std::string::npos ? std::string::npos : cut - p));
      if (cut == std::string::npos) break;
      p = cut + 5;
    }
    bool found = false;
    for (const std::string& l : lines) {
      std::size_t pos = 0;
      bool all = l.rfind(parts[0], 0) == 0;
      for (const std::string& part : parts) {
        const std::size_t f = all ? l.find(part, pos) : std::string::npos;
        all = f != std::string::npos;
        pos = all ? f + part.size() : pos;
      }
      if (all && (parts.size() > 1 || l == line)) found = true;
    }
    ++checked;
    EXPECT_TRUE(found) << "README line not in the output: '" << line << "'\n" << r.out;
  }
  EXPECT_GE(checked, 6);
}

// A file of 1,000 random games inside the tables (3 kings vs 1 king and what
// it leads to): every game annotated, each value the oracle's; prints the rate.
TEST_F(Annotate, AThousandGames) {
  auto tb = open();
  ASSERT_TRUE(tb);
  std::mt19937 rng(29);
  std::string text;
  const Position start = *parse_fen(russian(), "W:WKa1,Kc3,Ke5:BKh8");
  for (int game = 0; game < 1000; ++game) {
    // A random placement of 3 white kings and a black king, then random legal moves.
    Position p;
    do {
      p = Position{};
      std::uniform_int_distribution<int> sq(0, kNumSquares - 1);
      while (popcount(p.kings[0]) < 3) p.kings[0] |= bit(sq(rng));
      int b;
      do b = sq(rng);
      while (p.kings[0] & bit(b));
      p.kings[1] = bit(b);
      p.side_to_move = Color::White;
    } while (!p.is_valid());
    text += "[Event \"random " + std::to_string(game) + "\"]\n[FEN \"" + to_fen(russian(), p) + "\"]\n";
    for (int ply = 0; ply < 40; ++ply) {
      MoveList legal;
      generate_moves(russian(), p, legal);
      if (legal.size() == 0 || p.pieces(Color::White) == 0 || p.pieces(Color::Black) == 0) break;
      const Move m = legal[std::uniform_int_distribution<std::size_t>(0, legal.size() - 1)(rng)];
      if (p.side_to_move == Color::White) text += std::to_string(ply / 2 + 1) + ". ";
      else if (ply == 0) text += "1... ";
      text += move_to_string(russian(), p, m) + " ";
      p = apply(p, m);
    }
    text += "*\n\n";
  }
  (void)start;
  const std::string file = write("thousand.pdn", text);
  const auto t0 = std::chrono::steady_clock::now();
  const Outcome r = run("annotate --json --tables " + dir_.string() + " --rulebook russian-federation " + file, false);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_EQ(r.code, 0) << r.out.substr(0, 2000);
  const json d = json::parse(r.out);
  EXPECT_EQ(d["games_annotated"], 1000);
  std::size_t positions = 0;
  for (const json& g : d["games"])
    for (const json& m : g["moves"]) {
      ++positions;
      ASSERT_FALSE(m["value"].is_null()) << m.dump();
      const Position q = *parse_fen(russian(), m["fen_after"].get<std::string>());
      ASSERT_EQ(m["value"]["result"], wdl_of(*tb, q) == Wdl::Win ? "win" : wdl_of(*tb, q) == Wdl::Loss ? "loss" : "draw");
    }
  std::printf("annotate: 1000 games, %zu moves, %.2f s with --json and a rulebook (%.0f games/s)\n", positions, s,
              1000 / s);
}

}  // namespace
