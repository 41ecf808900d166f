// damka annotate, the output: annotated PDN (annotated_pdn) or one JSON
// object (annotated_json), and the summary (annotate_command.hpp).
#include <iostream>

#include "annotate_command.hpp"

namespace damka::cli {

void AnnotatePrinter::game(const AnnotatedGame& a) {
  ++read_;
  if (!a.error.empty()) {
    if (o_.json)
      skipped_.push_back({{"index", a.index}, {"line", a.line}, {"error", a.error}});
    else
      report_.warn(o_.file + ": game " + std::to_string(a.index) + " (line " + std::to_string(a.line) +
                   ") skipped: " + a.error);
  } else {
    ++annotated_;
    errors_ += a.errors();
  }
  if (o_.json) games_.push_back(annotated_json(a));
  else std::cout << annotated_pdn(a);
}

void AnnotatePrinter::summary(const AnnotateSetup& s) const {
  const Tablebase& tb = *s.tb;
  const std::size_t bad = read_ - annotated_;
  if (o_.json) {
    Json j = report_.object();
    j["max_pieces"] = tb.max_pieces();
    j["games_read"] = s.games.size();
    j["games_annotated"] = annotated_;
    j["games_skipped"] = bad;
    j["errors_marked"] = errors_;
    j["skipped"] = skipped_;
    j["games"] = games_;
    if (bad) {
      j["error"] = std::to_string(bad) + (bad == 1 ? " game" : " games") + " could not be read";
      j["exit_code"] = 1;
    }
    // Tags and moves are the file's bytes: bytes that are not UTF-8 become U+FFFD.
    std::cout << j.dump(2, ' ', false, Json::error_handler_t::replace) << "\n";
  } else {
    std::cerr << "damka annotate: " << annotated_ << " of " << s.games.size()
              << (s.games.size() == 1 ? " game" : " games") << " annotated"
              << (bad ? " (" + std::to_string(bad) + " skipped)" : "") << ", " << errors_
              << (errors_ == 1 ? " error" : " errors") << " marked (" << s.rules->name << " tables up to "
              << tb.max_pieces() << " pieces in " << tb.directory().string() << ")\n";
  }
}

}  // namespace damka::cli
