// Pictures of the statute report (SVG).
// (Part of the statutes library; damka/statutes.hpp includes every part.)

#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "damka/env.hpp"
#include "damka/expected.hpp"
#include "damka/position.hpp"
#include "damka/rules.hpp"
#include "damka/statute_report.hpp"

namespace damka {

// An SVG picture of a clause: the board of its longest win and of its example
// position, with coordinates, captions and a legend in plain words; the title
// names the rulebook, the clause, the variant and each position.
std::string clause_svg(const StatuteReport& report, const ClauseReport& clause, const Rules& rules);
// A board with a caption (several lines).
std::string board_svg(const Rules& rules, const Position& p, const std::vector<std::string>& caption);
// Writes <dir>/<variant>/<book>/<clause id>.svg for every judgeable clause
// (ids with '/' written as '_'), so that runs for other variants or books do
// not overwrite each other; returns the files written.  The folders are
// made (Env::make_dirs) and each file is written whole to a temporary file
// and renamed into place (replace_file, safe_file.hpp) through `env`: a
// failed write leaves no partial picture (the pictures written before it
// stay).  Errors: Io naming the folder or file.  Cost: one small file per
// clause.  Thread-safe for distinct folders.
Expected<std::vector<std::filesystem::path>> write_svgs(const StatuteReport& report, const Rules& rules,
                                                        const std::filesystem::path& dir, Env& env = default_env());

}  // namespace damka
