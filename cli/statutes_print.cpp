// damka statutes, the output: the rulebooks found, the report as text or
// JSON (statutes_command.hpp; the report's own words are report_text and
// report_json's).
#include <iostream>

#include "damka/statute_json.hpp"
#include "statutes_command.hpp"

namespace damka::cli {

void print_rulebook_list(const StatutesOptions& o, const std::vector<std::filesystem::path>& dirs,
                         const Report& report) {
  Json books = Json::array();
  for (const auto& name : known_rulebooks(dirs)) {
    auto b = load_rulebook(name, dirs);
    if (o.json)
      books.push_back(b ? Json{{"name", name}, {"title", b->title}, {"path", b->path.string()}}
                        : Json{{"name", name}, {"error", b.message()}});
    else
      std::cout << name << (b ? "  " + b->title + "  (" + b->path.string() + ")" : "  (invalid: " + b.message() + ")")
                << "\n";
  }
  if (o.json) {
    Json j = report.object();
    Json searched = Json::array();
    for (const auto& d : dirs) searched.push_back(d.string());
    j["searched"] = searched;
    j["rulebooks"] = books;
    std::cout << j.dump(2) << "\n";
  }
}

void print_folder_note(const StatutesOptions& o, const StatutesSetup& s) {
  if (const std::string note = shared_folder_note(*s.rules, s.root); !note.empty() && !o.json)
    std::cout << note << "\n";
}

void print_statutes(const StatutesOptions& o, const StatutesSetup& s, const StatutesOutcome& r, const Report& report) {
  if (o.json) {
    Json j = report.object();
    const Json body = report_json(r.analysis, *s.rules);
    for (auto it = body.begin(); it != body.end(); ++it) j[it.key()] = it.value();
    if (r.svg_files) {
      Json svgs = Json::array();
      for (const auto& f : *r.svg_files) svgs.push_back(f.string());
      j["svg_files"] = svgs;
    }
    add_peak_memory(j, s.values.memory_budget);
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << report_text(r.analysis, *s.rules);
    if (r.svg_files) std::cout << "\n" << r.svg_files->size() << " SVG files written to " << o.svg << "\n";
    std::cout << "\n" << peak_memory_words(s.values.memory_budget) << "\n";
  }
}

}  // namespace damka::cli
