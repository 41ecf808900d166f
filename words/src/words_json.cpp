// The JSON of values (words_json.hpp).
#include "damka/words_json.hpp"

namespace damka {

using ojson = nlohmann::ordered_json;

ojson value_json(Value v) { return {{"result", result_word(v.wdl)}, {"plies", v.plies}}; }

ojson value_json(Value v, Metric metric) {
  ojson j = {{"result", result_word(v.wdl)}};
  if (metric != Metric::WDL) j["plies"] = v.plies;
  return j;
}

ojson distance_json(Value v) { return v.wdl == Wdl::Draw ? ojson(nullptr) : ojson(v.plies); }

}  // namespace damka
