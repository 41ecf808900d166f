// The JSON of the words in words.hpp: one way to write a value, built once.
// Objects are nlohmann::ordered_json (keys in the order written here); a
// caller that keeps its JSON in nlohmann::json (keys sorted) converts them
// on assignment, which sorts them like any other key.
//
//   value_json(Value::win(7))                 {"result": "win", "plies": 7}
//   value_json(Value::win(7), Metric::WDL)    {"result": "win"}
//   distance_json(Value::draw())              null (a draw has no distance)
//
// Pure: thread-safe, no I/O.
#pragma once

#include <nlohmann/json.hpp>

#include "damka/words.hpp"

namespace damka {

// {"result": "win"|"draw"|"loss", "plies": N} (plies 0 for a draw).
nlohmann::ordered_json value_json(Value v);
// {"result": ...} with "plies" unless the metric is WDL (which has no distance).
nlohmann::ordered_json value_json(Value v, Metric metric);
// The distance of a value in plies, or null for a draw.
nlohmann::ordered_json distance_json(Value v);

}  // namespace damka
