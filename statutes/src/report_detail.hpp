// Private to the statute report's renderings (report_text.cpp, report_json.cpp).
#pragma once

#include <string>

#include "damka/statutes.hpp"

namespace damka {

// How a clause's count is read, in one sentence (the text and the JSON say it alike).
std::string reading_of_count(const Clause& c);

}  // namespace damka
