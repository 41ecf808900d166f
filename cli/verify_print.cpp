// damka verify, the output: text as the run goes, or one JSON report at the
// end (verify_command.hpp).
#include <algorithm>
#include <cstdio>
#include <iostream>

#include "verify_command.hpp"

namespace damka::cli {

void VerifyPrinter::unreadable_folder(const std::string& folder) {
  std::cerr << "damka verify: cannot read " << folder << " (its tables are not verified)\n";
  unreadable_.push_back(folder);
}

void VerifyPrinter::variant_start(const Rules& r, const TableFamilyFolder& fam, const std::filesystem::path& root,
                                  bool first) {
  tables_ = Json::array();
  mismatches_ = Json::array();
  if (o_.json) return;
  std::printf("%s%s tables in %s (%s)\n", first ? "" : "\n", std::string(r.display_name).c_str(),
              fam.folder.string().c_str(),
              fam.variants.empty() ? "no readable header" : ("built as " + variant_list(fam.variants)).c_str());
  if (const std::string note = shared_folder_note(r, root); !note.empty()) std::printf("%s\n", note.c_str());
}

void VerifyPrinter::file_problem(const VerifyFileProblem& f) {
  if (f.kind == VerifyFileProblem::Kind::Stray) {
    strays_.push_back(f.path.string());
    if (!o_.json) std::printf("STRAY FILE %s\n", f.message.c_str());
    return;
  }
  bad_files_.push_back(f.message);
  files_.push_back({{"kind", file_problem_name(f.kind)}, {"path", f.path.string()}, {"message", f.message}});
  if (!o_.json)
    std::printf("%s FILE %s\n", f.kind == VerifyFileProblem::Kind::Missing ? "MISSING" : "BAD", f.message.c_str());
}

void VerifyPrinter::mismatch(const VerifyMismatch& x) {
  if (o_.json)
    mismatches_.push_back({{"material", x.material.name()}, {"metric", x.metric}, {"fen", x.fen},
                           {"stored", x.stored}, {"expected", x.expected}});
  else
    std::printf("MISMATCH %s %s %s: stored %s, one-ply search gives %s\n", x.material.name().c_str(),
                x.metric.c_str(), x.fen.c_str(), x.stored.c_str(), x.expected.c_str());
}

void VerifyPrinter::table_done(const VerifyReport& t) {
  if (!t.error.empty()) {
    if (!t.error_in_dependency &&
        std::find(bad_files_.begin(), bad_files_.end(), Json(t.error)) == bad_files_.end())
      bad_files_.push_back(t.error);
    any_bad_ = true;
    if (o_.json) {
      tables_.push_back({{"material", t.material.name()}, {"error", t.error}, {"not_verifiable", t.error_in_dependency}});
    } else {
      const std::string prefix = "not verifiable: ";
      const bool dep = t.error_in_dependency && t.error.rfind(prefix, 0) == 0;
      std::printf("%-10s %s: %s\n", t.material.name().c_str(), dep ? "NOT VERIFIABLE" : "NOT VERIFIED",
                  (dep ? t.error.substr(prefix.size()) : t.error).c_str());
    }
  } else if (o_.json) {
    Json row = {{"material", t.material.name()}, {"positions", t.positions}, {"mismatches", t.mismatches},
                {"seconds", t.seconds}};
    if (t.journaled) row["journaled"] = true;
    tables_.push_back(std::move(row));
  } else if (t.journaled) {
    std::printf("%-10s %12llu positions  ok (in the journal: found good in %.2f s by an earlier run, files "
                "unchanged)\n",
                t.material.name().c_str(), static_cast<unsigned long long>(t.positions), t.seconds);
  } else {
    std::printf("%-10s %12llu positions  %s  %.2f s\n", t.material.name().c_str(),
                static_cast<unsigned long long>(t.positions),
                t.mismatches ? (std::to_string(t.mismatches) + " MISMATCHES").c_str() : "ok", t.seconds);
  }
  std::fflush(stdout);
}

void VerifyPrinter::stray_file(const std::filesystem::path& p) {
  std::cerr << "damka verify: " << temp_file_words(p) << "\n";
  strays_.push_back(p.string());
}

void VerifyPrinter::bad_folder(const std::string& message) {
  bad_files_.push_back(message);
  if (!o_.json) std::printf("BAD FOLDER %s\n", message.c_str());
}

void VerifyPrinter::variant_done(const Rules& r, const TableFamilyFolder& fam, const VerifyResult& result) {
  std::uint64_t bad = 0, positions = 0, verified = 0, journaled = 0;
  for (const VerifyReport& t : result.tables) {
    if (!t.error.empty()) continue;
    ++verified;
    journaled += t.journaled;
    bad += t.mismatches;
    positions += t.positions;
  }
  total_bad_ += bad;
  total_positions_ += positions;
  if (o_.json)
    variants_.push_back({{"variant", std::string(r.name)}, {"tables_folder", fam.folder.string()},
                         {"built_as", variant_list(fam.variants)}, {"tables", tables_}, {"mismatches", mismatches_},
                         {"positions", positions}, {"mismatch_count", bad}, {"journaled_tables", journaled},
                         {"stats_recorded", result.stats_recorded}});
  else
    std::printf("%s: %llu tables verified%s, %llu positions, %llu mismatches\n", std::string(r.name).c_str(),
                static_cast<unsigned long long>(verified),
                journaled ? (" (" + std::to_string(journaled) + " of them by earlier runs, in the journal)").c_str()
                          : "",
                static_cast<unsigned long long>(positions), static_cast<unsigned long long>(bad));
}

int VerifyPrinter::exit_code() const {
  return (any_bad_ || !bad_files_.empty() || !unreadable_.empty()) ? 1 : total_bad_ ? 3 : 0;
}

void VerifyPrinter::finish(const std::vector<const Rules*>& todo) const {
  if (o_.json) {
    Json j = report_.object();
    j["variant"] = todo.size() == 1 ? Json(std::string(todo.front()->name)) : Json(nullptr);
    j["variants"] = variants_;
    j["bad_files"] = bad_files_;
    j["stray_files"] = strays_;
    j["unreadable_folders"] = unreadable_;
    j["files"] = files_;
    j["positions"] = total_positions_;
    j["mismatch_count"] = total_bad_;
    add_peak_memory(j, budget());
    j["exit_code"] = exit_code();
    std::cout << j.dump(2) << "\n";
    return;
  }
  if (!bad_files_.empty()) {
    std::printf("\n%zu bad files:\n", bad_files_.size());
    for (const auto& b : bad_files_) std::printf("  %s\n", b.get<std::string>().c_str());
  }
  std::printf("%s\n", peak_memory_words(budget()).c_str());
}

std::uint64_t VerifyPrinter::budget() const {
  auto m = memory_bytes(o_.memory);  // checked by setup_verify before any table
  return m ? *m : 0;
}

}  // namespace damka::cli
