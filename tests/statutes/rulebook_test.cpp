// Rulebooks as data: the two federations' books load with the clauses the
// seeds give, and broken books are refused with clear messages.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "damka/notation.hpp"
#include "damka/slots.hpp"
#include "fixture.hpp"

namespace {

using namespace damka;
using statutes_test::russian;

TEST(Rulebook, RussianFederation) {
  const Rulebook b = statutes_test::book("russian-federation");
  ASSERT_FALSE(b.clauses.empty());
  EXPECT_TRUE(b.governs(russian()));
  EXPECT_FALSE(b.governs(rules_of(Variant::Brazilian)));
  for (const char* id : {"2.1.9.1.1", "2.1.9.1.2", "2.1.9.1.6", "2.1.9.1.9"}) {
    ASSERT_NE(b.find(id), nullptr) << id;
    EXPECT_FALSE(b.find(id)->judgeable) << id;
    EXPECT_FALSE(b.find(id)->reason.empty()) << id;
  }
  const Clause* c3 = b.find("2.1.9.1.3");
  ASSERT_NE(c3, nullptr);
  EXPECT_EQ(c3->limit, 15);
  EXPECT_EQ(c3->conditions, std::vector<Condition>{Condition::StrongerHoldsMainRoad});
  EXPECT_EQ(c3->metric(), CountMetric::DTW);
  ASSERT_EQ(c3->sides.size(), 1u);
  EXPECT_TRUE(c3->sides[0].stronger.matches(3, 0));
  EXPECT_FALSE(c3->sides[0].stronger.matches(3, 1));
  const Clause* c4 = b.find("2.1.9.1.4");
  ASSERT_NE(c4, nullptr);
  EXPECT_TRUE(c4->sides[0].stronger.matches(3, 0));
  EXPECT_TRUE(c4->sides[0].stronger.matches(3, 2));
  EXPECT_TRUE(c4->sides[0].stronger.matches(5, 0));
  EXPECT_FALSE(c4->sides[0].stronger.matches(2, 2));
  const int limits[3] = {5, 30, 60};
  const char* parts[3] = {"2.1.9.1.5/2-3", "2.1.9.1.5/4-5", "2.1.9.1.5/6-7"};
  for (int i = 0; i < 3; ++i) {
    const Clause* c = b.find(parts[i]);
    ASSERT_NE(c, nullptr) << parts[i];
    EXPECT_EQ(c->number, "2.1.9.1.5");
    EXPECT_EQ(c->limit, limits[i]);
    EXPECT_EQ(c->metric(), CountMetric::DTC);
    EXPECT_TRUE(c->pieces.matches(2 * i + 2) && c->pieces.matches(2 * i + 3));
    EXPECT_FALSE(c->pieces.matches(2 * i + 4));
  }
  const Clause* c7 = b.find("2.1.9.1.7");
  ASSERT_NE(c7, nullptr);
  EXPECT_EQ(c7->limit, 5);
  for (int kings = 0; kings <= 3; ++kings) EXPECT_TRUE(c7->sides[0].stronger.matches(kings, 3 - kings));
  EXPECT_EQ(c7->conditions, std::vector<Condition>{Condition::LoneKingOnMainRoad});
  const Clause* c8 = b.find("2.1.9.1.8");
  ASSERT_NE(c8, nullptr);
  EXPECT_EQ(c8->limit, 15);
  EXPECT_EQ(c8->metric(), CountMetric::KingsOnly);
}

TEST(Rulebook, Ukrainian) {
  const Rulebook b = statutes_test::book("ukrainian-64");
  EXPECT_TRUE(b.governs(russian()));
  EXPECT_TRUE(b.governs(rules_of(Variant::Brazilian)));
  for (const char* id : {"6.3.1", "6.3.2", "6.3.3", "6.3.4"}) {
    ASSERT_NE(b.find(id), nullptr) << id;
    EXPECT_EQ(b.find(id)->limit, 5) << id;
  }
  EXPECT_EQ(b.find("6.3.1")->conditions, std::vector<Condition>{Condition::LoneKingOnMainRoad});
  EXPECT_EQ(b.find("6.3.2")->sides.size(), 2u);
  EXPECT_EQ(b.find("6.4")->limit, 15);
  EXPECT_EQ(b.find("6.4")->conditions, std::vector<Condition>{Condition::LoneKingOffMainRoad});
  EXPECT_EQ(b.find("6.6")->limit, 32);
  EXPECT_EQ(b.find("6.6")->except.size(), 4u);
  for (const char* id : {"6.1", "6.2", "6.5"}) EXPECT_FALSE(b.find(id)->judgeable) << id;
}

TEST(Rulebook, EveryShippedBookIsValid) {
  const auto dirs = rulebook_search_path();
  const auto names = known_rulebooks(dirs);
  EXPECT_GE(names.size(), 3u);
  for (const auto& n : names) {
    auto b = load_rulebook(n, dirs);
    EXPECT_TRUE(b.ok()) << n << ": " << (b ? "" : b.message());
  }
}

TEST(Rulebook, UnknownNameListsTheKnownOnes) {
  auto b = load_rulebook("no-such-book", rulebook_search_path());
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.message().find("unknown rulebook 'no-such-book'"), std::string::npos) << b.message();
  EXPECT_NE(b.message().find("russian-federation"), std::string::npos) << b.message();
  EXPECT_NE(b.message().find("ukrainian-64"), std::string::npos) << b.message();
  EXPECT_FALSE(load_rulebook("../etc/passwd", rulebook_search_path()).ok());
}

TEST(Rulebook, OverrideDirectory) {
  const auto dir = std::filesystem::temp_directory_path() / ("damka_statutes_books_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string text = R"({"name": "mine", "title": "t", "source": "s", "variants": ["russian"],
    "clauses": [{"id": "1", "text": "x", "summary": "king vs king", "judgeable": true,
      "material": {"sides": [{"stronger": {"kings": 1, "men": 0}, "weaker": {"kings": 1, "men": 0}}]},
      "limit": 3, "restarts": [], "goal": "the win"}]})";
  std::ofstream(dir / "mine.json") << text;
  std::ofstream(dir / "other.json") << text;  // wrong name inside
  const auto dirs = rulebook_search_path({}, dir);
  ASSERT_EQ(dirs.size(), 1u);
  auto b = load_rulebook("mine", dirs);
  ASSERT_TRUE(b.ok()) << b.message();
  EXPECT_EQ(b->clauses.size(), 1u);
  EXPECT_EQ(b->path, dir / "mine.json");
  auto o = load_rulebook("other", dirs);
  ASSERT_FALSE(o.ok());
  EXPECT_NE(o.message().find("'name' is 'mine'"), std::string::npos) << o.message();
  EXPECT_FALSE(load_rulebook("russian-federation", dirs).ok());  // only the override is searched
  std::filesystem::remove_all(dir);
}

// A valid one-clause book with `clause` spliced in.
std::string book_with(const std::string& clause, const std::string& extra = "") {
  return R"({"name": "t", "title": "t", "source": "s", "variants": ["russian"], )" + extra +
         R"("clauses": [)" + clause + "]}";
}
const std::string kGood = R"({"id": "1", "text": "x", "summary": "s", "judgeable": true,
  "material": {"sides": [{"stronger": {"kings": "3+"}, "weaker": {"kings": 1, "men": 0}}]},
  "position": ["lone_king_on_main_road"], "limit": 5, "restarts": ["capture", "promotion"], "goal": "g"})";

void expect_refused(const std::string& text, const std::string& part) {
  auto b = parse_rulebook(text, "test.json");
  ASSERT_FALSE(b.ok()) << text;
  EXPECT_NE(b.message().find(part), std::string::npos) << b.message();
  EXPECT_EQ(b.message().rfind("test.json", 0), 0u) << b.message();
}

std::string replace(std::string s, const std::string& from, const std::string& to) {
  const auto i = s.find(from);
  EXPECT_NE(i, std::string::npos) << from;
  return s.replace(i, from.size(), to);
}

TEST(Rulebook, Validation) {
  ASSERT_TRUE(parse_rulebook(book_with(kGood), "test.json").ok()) << parse_rulebook(book_with(kGood), "t").message();
  expect_refused("{not json", "not valid JSON");
  expect_refused(book_with(kGood, R"("colour": 1, )"), "unknown key 'colour'");
  expect_refused(book_with(replace(kGood, "lone_king_on_main_road", "on_the_road")),
                 "unknown position condition 'on_the_road'");
  expect_refused(book_with(replace(kGood, R"(["capture", "promotion"])", R"(["capture"])")), "'restarts' must be");
  expect_refused(book_with(replace(kGood, R"(["capture", "promotion"])", R"(["castling"])")), "unknown restart");
  expect_refused(book_with(replace(kGood, R"("limit": 5)", R"("limit": 0)")), "'limit' must be");
  expect_refused(book_with(replace(kGood, R"("limit": 5, )", "")), "'limit'");
  expect_refused(book_with(replace(kGood, R"("3+")", R"("three")")), "is not N or N+");
  expect_refused(book_with(replace(kGood, R"("judgeable": true)", R"("judgeable": "yes")")), "'judgeable'");
  expect_refused(book_with(kGood + "," + kGood), "used twice");
  expect_refused(book_with(replace(kGood, R"("goal": "g")", R"("goal": "g", "except": ["9"])")),
                 "unknown clause '9'");
  expect_refused(replace(book_with(kGood), R"(["russian"])", R"(["checkers"])"), "unknown variant");
  expect_refused(book_with(R"({"id": "2", "text": "x", "summary": "s", "judgeable": false})"), "'reason'");
}

TEST(Coverage, Conditions) {
  const Rulebook ru = statutes_test::book("russian-federation");
  const Rulebook ua = statutes_test::book("ukrainian-64");
  auto fen = [](const char* f) { return *parse_fen(russian(), f); };
  // Stronger side on the main road (c3), lone king off it.
  const Position a = fen("W:WKc3,Ke1,Kg1:BKh2");
  EXPECT_EQ(clause_covers(ru, *ru.find("2.1.9.1.3"), a), Color::White);
  EXPECT_EQ(clause_covers(ru, *ru.find("2.1.9.1.4"), a), Color::White);
  EXPECT_FALSE(clause_covers(ru, *ru.find("2.1.9.1.7"), a));
  EXPECT_EQ(clause_covers(ua, *ua.find("6.4"), a), Color::White);
  EXPECT_FALSE(clause_covers(ua, *ua.find("6.3.1"), a));
  EXPECT_EQ(clause_covers(ua, *ua.find("6.6"), a), Color::White);
  // Colours reversed: Black is the stronger side.
  EXPECT_EQ(clause_covers(ru, *ru.find("2.1.9.1.3"), a.flipped()), Color::Black);
  // Lone king on the main road (h8): 6.3.1 takes it, 6.6 leaves it.
  const Position b = fen("B:WKc1,Ke1,Kg1:BKh8");
  EXPECT_FALSE(clause_covers(ru, *ru.find("2.1.9.1.3"), b));
  EXPECT_EQ(clause_covers(ru, *ru.find("2.1.9.1.7"), b), Color::White);
  EXPECT_EQ(clause_covers(ua, *ua.find("6.3.1"), b), Color::White);
  EXPECT_FALSE(clause_covers(ua, *ua.find("6.6"), b));
  EXPECT_FALSE(clause_covers(ua, *ua.find("6.4"), b));
  // Both sides have kings, equal pieces: the winner is the stronger side.
  const Position c = fen("W:WKa1,Kc1:BKh8,Kf8");
  const Clause& c5 = *ru.find("2.1.9.1.5/4-5");
  EXPECT_EQ(clause_covers(ru, c5, c, Color::Black), Color::Black);
  EXPECT_EQ(clause_covers(ru, c5, c), Color::White);
  EXPECT_FALSE(clause_covers(ru, *ru.find("2.1.9.1.5/2-3"), c));
  EXPECT_FALSE(clause_covers(ru, c5, fen("W:WKa1,c1:Bh8,f8")));  // no kings
  // Materials.
  EXPECT_TRUE(clause_matches_material(ru, *ru.find("2.1.9.1.4"), Material{1, 3, 0, 1}));
  EXPECT_TRUE(clause_matches_material(ru, *ru.find("2.1.9.1.4"), Material{0, 1, 0, 3}));
  EXPECT_FALSE(clause_matches_material(ru, *ru.find("2.1.9.1.4"), Material{1, 2, 0, 1}));
  EXPECT_TRUE(clause_matches_material(ru, *ru.find("2.1.9.1.7"), Material{3, 0, 0, 1}));
  EXPECT_FALSE(clause_matches_material(ua, *ua.find("6.6"), Material{0, 2, 0, 1}));  // all 6.3.3
  EXPECT_TRUE(clause_matches_material(ua, *ua.find("6.6"), Material{0, 3, 0, 1}));   // off the road
  EXPECT_FALSE(clause_matches_material(ru, *ru.find("2.1.9.1.8"), Material{0, 3, 1, 0}));
}

// MaterialCoverage gives clause_covers' answers: every clause of every
// rulebook (excepts included), every material up to 5 pieces in both
// orientations, about 2000 positions spread over each, every winner.  Some
// materials' answers are found once (counts decide), some per position (the
// main road).
TEST(Coverage, PerMaterialAnswersAsPerPosition) {
  std::uint64_t fixed = 0, dependent = 0, covered = 0, checked = 0;
  for (const char* name : {"russian-federation", "russian-summary", "ukrainian-64"}) {
    const Rulebook book = statutes_test::book(name);
    ASSERT_FALSE(book.clauses.empty()) << name;
    for (const Clause& clause : book.clauses) {
      const ResolvedClause rc = resolve_clause(book, clause);
      for (const Material& m : build_order(5)) {
        const MaterialIndex index(m);
        const std::uint64_t n = table_slots(index), stride = std::max<std::uint64_t>(1, n / 2000) | 1;
        for (int im = 0; im < 2; ++im) {
          const MaterialCoverage cover(rc, im == 0 ? m : m.flipped());
          (cover.position_dependent() ? dependent : fixed)++;
          for (std::uint64_t s = 0; s < n; s += stride) {
            const Position p = im == 0 ? position_at(index, s) : position_at(index, s).flipped();
            for (const std::optional<Color> w : {std::optional<Color>{}, std::optional<Color>{Color::White},
                                                 std::optional<Color>{Color::Black}}) {
              const auto want = clause_covers(rc, p, w);
              ASSERT_EQ(cover(p, w), want) << name << " " << clause.id << " " << to_fen(russian(), p);
              covered += want.has_value();
              ++checked;
            }
          }
        }
      }
    }
  }
  EXPECT_GT(fixed, 0u);
  EXPECT_GT(dependent, 0u);
  EXPECT_GT(covered, 1000u);
  EXPECT_GT(checked, covered);
}

TEST(Report, JsonTextAndSvg) {
  const auto& t = statutes_test::three_kings();
  SolverValues values(t.solver.rules(), t.solver);
  ReportOptions opt;
  opt.max_pieces = 4;
  opt.examples = 3;
  auto r = analyse(statutes_test::book("russian-federation"), russian(), values, opt);
  ASSERT_TRUE(r.ok()) << r.message();
  const auto j = report_json(*r, russian());
  EXPECT_EQ(j["rulebook"]["name"], "russian-federation");
  EXPECT_EQ(j["variant"], "russian");
  ASSERT_TRUE(j["clauses"].is_array());
  bool saw7 = false;
  // One schema: every judgeable clause has the same keys with the same JSON
  // types (docs/statutes-report.md); nullable fields are null or a number.
  const auto& first = j["clauses"][0];
  for (const auto& c : j["clauses"]) {
    ASSERT_EQ(c.size(), first.size());
    for (auto it = first.begin(); it != first.end(); ++it) {
      ASSERT_TRUE(c.contains(it.key())) << it.key();
      const auto& v = c[it.key()];
      if (!v.is_null() && !it.value().is_null()) {
        EXPECT_EQ(v.type(), it.value().type()) << c["id"] << " " << it.key();
      }
    }
    for (const char* side : {"white_to_move", "black_to_move"}) {
      const auto& t = c["totals"][side];
      EXPECT_TRUE(t["positions"].is_number_unsigned());
      EXPECT_TRUE(t["statute_aware"]["draws"].is_number_unsigned());
      EXPECT_TRUE(t["longest_moves"].is_null() || t["longest_moves"].is_number_integer());
    }
    EXPECT_TRUE(c["material"]["pieces"]["min"].is_number_integer());
    EXPECT_TRUE(c["material"]["pieces"]["max"].is_null() || c["material"]["pieces"]["max"].is_number_integer());
    EXPECT_TRUE(c["text"].is_string() && !c["text"].get<std::string>().empty());
    if (c["id"] == "2.1.9.1.7") {
      saw7 = true;
      EXPECT_EQ(c["limit_suffices"], false);
      EXPECT_GT(c["turned_into_draws"]["over_limit"].get<std::uint64_t>(), 0u);
      EXPECT_LE(c["turned_into_draws"]["examples"].size(), 3u);
      for (const auto& e : c["turned_into_draws"]["examples"]) EXPECT_FALSE(e["line"].get<std::string>().empty());
      EXPECT_TRUE(parse_fen(russian(), c["longest_win"]["fen"].get<std::string>()).ok());
    }
  }
  // References only to files in the repository.
  const std::string all = j.dump();
  EXPECT_EQ(all.find("seed "), std::string::npos);
  EXPECT_EQ(all.find("RULES.md"), std::string::npos);
  EXPECT_TRUE(saw7);
  bool saw9 = false;
  for (const auto& c : j["not_judgeable"]) saw9 = saw9 || c["id"] == "2.1.9.1.9";
  EXPECT_TRUE(saw9);
  const std::string text = report_text(*r, russian());
  EXPECT_NE(text.find("2.1.9.1.4"), std::string::npos);
  EXPECT_NE(text.find("Clauses a table cannot judge"), std::string::npos);
  EXPECT_NE(text.find("своим 15-м ходом"), std::string::npos);  // the original text
  EXPECT_EQ(text.find("seed "), std::string::npos);

  const auto dir = std::filesystem::temp_directory_path() / ("damka_statutes_svg_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  auto files = write_svgs(*r, russian(), dir);
  ASSERT_TRUE(files.ok()) << files.message();
  EXPECT_EQ(files->size(), r->clauses.size());
  for (const auto& f : *files) {
    EXPECT_EQ(f.parent_path(), dir / "russian" / "russian-federation");
    std::ifstream in(f);
    const std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(s.rfind("<svg", 0), 0u) << f;
    EXPECT_NE(s.find("</svg>"), std::string::npos) << f;
    EXPECT_NE(s.find("<title>Russian - russian-federation "), std::string::npos) << f;
    EXPECT_NE(s.find("How to read it"), std::string::npos) << f;
    EXPECT_EQ(s.find("plies"), std::string::npos) << f;
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
