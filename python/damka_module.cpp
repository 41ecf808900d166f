// The `damka` Python module (pybind11) over the C++ API: open tables, probe
// a FEN or bitboards (WDL/DTW/DTC), moves with values, the principal
// variation, draw-statute verdicts, perft.
//
// Errors are Python exceptions carrying the library's message: damka.Error
// (bad arguments, FENs, folders, rulebooks), with damka.UnknownError (a table
// the answer needs is missing) and damka.CorruptError (a table was found
// damaged) as subclasses.  The class is chosen by the error's code
// (ErrorCode, expected.hpp), never by its text.  Probing, moves, PV, verdicts and perft release the
// GIL: a Tablebase may be probed from many Python threads at once.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <memory>
#include <optional>
#include <string>

#include "damka/movegen.hpp"
#include "damka/notation.hpp"
#include "damka/probe.hpp"
#include "damka/statute_json.hpp"
#include "damka/statutes.hpp"
#include "damka/statute_json.hpp"
#include "damka/table_paths.hpp"
#include "damka/words.hpp"

namespace py = pybind11;
using namespace damka;

namespace {

struct DamkaError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct UnknownError : DamkaError {
  using DamkaError::DamkaError;
};
struct CorruptError : DamkaError {
  using DamkaError::DamkaError;
};

// Raises the exception of an error's code: NotFound UnknownError, Corrupt
// CorruptError, every other code damka.Error.
[[noreturn]] void raise_error(const Error& e, const std::string& prefix = {}) {
  const std::string message = prefix + e.message();
  switch (e.code()) {
    case ErrorCode::NotFound: throw UnknownError(message);
    case ErrorCode::Corrupt: throw CorruptError(message);
    default: throw DamkaError(message);
  }
}

const Rules& rules_named(const std::string& name) {
  const auto v = parse_variant(name);
  if (!v) throw DamkaError("unknown variant '" + name + "' (known: " + variant_names() + ")");
  return rules_of(*v);
}

Metric metric_named(const std::string& name) {
  if (const auto m = parse_metric(name)) return *m;
  throw DamkaError("unknown metric '" + name + "' (known: wdl, dtw, dtc)");
}

Color side_named(const py::object& side) {
  if (py::isinstance<py::str>(side)) {
    if (const auto c = parse_color(side.cast<std::string>())) return *c;
  } else if (py::isinstance<py::int_>(side)) {
    const int i = side.cast<int>();
    if (i == 0 || i == 1) return i == 0 ? Color::White : Color::Black;
  }
  throw DamkaError("side must be 'white' or 'black' (or 0, 1)");
}

Position fen_position(const Rules& r, const std::string& fen) {
  auto p = parse_fen(r, fen);
  if (!p) throw DamkaError("bad FEN '" + fen + "': " + p.message());
  return *p;
}

// A value for the side to move, in the metric it was probed in (plies 0
// for WDL and draws).  Its words are words.hpp's.
struct PyValue {
  Value value;
  Metric metric = Metric::WDL;
  std::string result() const { return result_word(value.wdl); }
  int plies() const { return value.plies; }
};

PyValue to_py(Value v, Metric m) { return {m == Metric::WDL ? v.wdl_only() : v, m}; }

struct PyMove {
  std::string move;
  int from = 0, to = 0;
  std::uint32_t taken = 0;
  bool promotes = false;
  PyValue dtw;
  std::optional<PyValue> dtc;  // None when a DTC table the move needs is missing
};

class PyTablebase {
 public:
  PyTablebase(const std::string& variant, const std::filesystem::path& dir, std::size_t cache_mb)
      : rules_(&rules_named(variant)), dir_(dir) {
    TablebaseOptions opt;
    opt.cache_bytes = cache_mb << 20;
    auto tb = Tablebase::open(*rules_, dir, opt);
    if (!tb) throw DamkaError("cannot open tables: " + tb.message());
    tb_ = std::move(*tb);
  }

  std::string variant() const { return std::string(rules_->name); }
  std::string folder() const { return tb_->directory().string(); }
  int max_pieces() const { return tb_->max_pieces(); }

  Position from_fen(const std::string& fen) const { return fen_position(*rules_, fen); }
  static Position from_bitboards(std::uint32_t wm, std::uint32_t wk, std::uint32_t bm, std::uint32_t bk, Color side) {
    Position p;
    p.men[0] = wm;
    p.kings[0] = wk;
    p.men[1] = bm;
    p.kings[1] = bk;
    p.side_to_move = side;
    return p;
  }

  // Throws for every status but Ok, with a message naming the problem
  // (probe_status_error, probe.hpp).
  [[noreturn]] void raise(ProbeStatus s, const Position& p, Metric m) const {
    const Error e = probe_status_error(*tb_, p, s, m);
    raise_error(e, s == ProbeStatus::Unknown ? "unknown: " : "");
  }

  PyValue probe(const Position& p, const std::string& metric_text) const {
    const Metric m = metric_named(metric_text);
    ProbeResult r;
    {
      py::gil_scoped_release release;
      r = tb_->probe(p, m);
    }
    if (!r.ok()) raise(r.status, p, m);
    return to_py(r.value, m);
  }

  std::vector<PyMove> moves(const Position& p) const {
    std::vector<MoveValue> mv;
    ProbeStatus s;
    {
      py::gil_scoped_release release;
      s = tb_->probe_moves(p, mv);
    }
    if (s != ProbeStatus::Ok) raise(s, p, Metric::DTW);
    std::vector<PyMove> out;
    for (const MoveValue& x : mv) {
      PyMove o;
      o.move = move_to_string(*rules_, p, x.move);
      o.from = x.move.from;
      o.to = x.move.to;
      o.taken = x.move.taken;
      o.promotes = x.move.promotes;
      o.dtw = to_py(x.dtw, Metric::DTW);
      if (x.dtc_known) o.dtc = to_py(x.dtc, Metric::DTC);
      out.push_back(std::move(o));
    }
    return out;
  }

  std::vector<std::string> pv(const Position& p) const {
    std::vector<Move> line;
    ProbeStatus s;
    {
      py::gil_scoped_release release;
      s = tb_->principal_variation(p, line);
    }
    if (s != ProbeStatus::Ok) raise(s, p, Metric::DTW);
    return line_moves(*rules_, p, line);
  }

  py::object judge(const std::string& fen, const std::string& rulebook, int moves_played) const {
    const Position p = from_fen(fen);
    std::optional<Expected<StatuteVerdict>> v;
    {
      py::gil_scoped_release release;
      v = judge_with_tables(rulebook, *rules_, p, moves_played, dir_);
    }
    if (!*v) raise_error(v->error(), "statutes: ");
    const std::string text = statutes_json(rulebook, moves_played, *v).dump();
    return py::module_::import("json").attr("loads")(text);
  }

 private:
  const Rules* rules_;
  std::filesystem::path dir_;
  std::unique_ptr<Tablebase> tb_;
};

std::uint64_t py_perft(const std::string& variant, int depth, const std::string& fen, bool paths) {
  const Rules& r = rules_named(variant);
  if (depth < 0 || depth > 30) throw DamkaError("depth must be 0..30");
  const Position p = fen.empty() ? start_position(r) : fen_position(r, fen);
  py::gil_scoped_release release;
  return perft(r, p, depth, paths ? MoveMode::AllPaths : MoveMode::Merged);
}

}  // namespace

// The C++ object behind a Python `self` of class T.  Python can make an
// instance with T.__new__(T) and never call __init__: pybind11 then hands
// out memory that holds no object, so reading it would crash or return
// garbage.  Such an instance is refused with TypeError.  Cost: a lookup of
// the instance's holder.  Call with the GIL held.
template <class T>
T& self_of(py::handle self, const char* name) {
  auto* inst = reinterpret_cast<py::detail::instance*>(self.ptr());
  const auto* type = py::detail::get_type_info(typeid(T));
  if (self.ptr() == nullptr || type == nullptr || !py::isinstance<T>(self))
    throw py::type_error(std::string("expected a damka.") + name);
  auto vh = inst->get_value_and_holder(type);
  if (!vh || !vh.holder_constructed())
    throw py::type_error(std::string("this damka.") + name + " was made by " + name +
                         ".__new__ without __init__ and holds nothing" +
                         (std::string(name) == "Tablebase" ? "; open tables with damka.Tablebase(variant, folder)"
                                                           : "; values come from Tablebase.probe() and moves()"));
  return *static_cast<T*>(vh.value_ptr());
}

PYBIND11_MODULE(damka, m) {
  m.doc() = "damka: endgame tablebases for draughts (Russian, Brazilian, Filipino, Mozambique, Thai, English)";
  auto error = py::register_exception<DamkaError>(m, "Error", PyExc_RuntimeError);
  error.attr("__doc__") = "damka's errors: bad arguments, FENs, folders, rulebooks (the message names the problem)";
  py::register_exception<UnknownError>(m, "UnknownError", error.ptr()).attr("__doc__") =
      "A table the answer needs is missing (the message names its material)";
  py::register_exception<CorruptError>(m, "CorruptError", error.ptr()).attr("__doc__") =
      "A table was found damaged (then treated as missing)";

  // Every method reaches its C++ object through self_of(), which refuses an
  // object made by __new__ without __init__ (its memory holds no object).
  py::class_<PyValue>(m, "Value", "A value for the side to move: result 'win'/'draw'/'loss', plies (0 for WDL)")
      .def_property_readonly("result", [](py::handle s) { return self_of<PyValue>(s, "Value").result(); },
                             "'win', 'draw' or 'loss', for the side to move")
      .def_property_readonly("plies", [](py::handle s) { return self_of<PyValue>(s, "Value").plies(); },
                             "Distance in plies (DTW: to the end of the game; DTC: to the next capture or "
                             "promotion); 0 for WDL values and draws")
      .def_property_readonly("metric", [](py::handle s) { return std::string(metric_name(self_of<PyValue>(s, "Value").metric)); },
                             "The metric the value was probed in: 'wdl', 'dtw' or 'dtc'")
      .def("__eq__", [](py::handle a, py::handle b) -> py::object {
        if (!py::isinstance<PyValue>(b)) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
        const PyValue& x = self_of<PyValue>(a, "Value");
        const PyValue& y = self_of<PyValue>(b, "Value");
        return py::bool_(x.value == y.value);
      }, "Equal result and plies (the metric is not compared)")
      .def("__repr__", [](py::handle s) {
        const PyValue& v = self_of<PyValue>(s, "Value");
        return "Value(" + describe_value(v.value, v.metric) + ")";
      }, "Value(win in 3 plies), Value(draw), ...");

  py::class_<PyMove>(m, "MoveValue", "A legal move and its value for the side that plays it")
      .def_property_readonly("move", [](py::handle s) { return self_of<PyMove>(s, "MoveValue").move; },
                             "The move in the variant's notation ('c3-d4', 'c3:e5', English '22-18')")
      .def_property_readonly("from_square", [](py::handle s) { return self_of<PyMove>(s, "MoveValue").from; },
                             "Square the piece leaves (0..31: a1 = 0, c1 = 1, ..., h8 = 31)")
      .def_property_readonly("to_square", [](py::handle s) { return self_of<PyMove>(s, "MoveValue").to; },
                             "Square the piece ends on (0..31)")
      .def_property_readonly("taken", [](py::handle s) { return self_of<PyMove>(s, "MoveValue").taken; },
                             "Bitboard of the pieces captured (bit s = square s; 0 for a quiet move)")
      .def_property_readonly("promotes", [](py::handle s) { return self_of<PyMove>(s, "MoveValue").promotes; },
                             "Whether a man becomes a king by this move")
      .def_property_readonly("dtw", [](py::handle s) { return self_of<PyMove>(s, "MoveValue").dtw; },
                             "The move's DTW value for the side that plays it (a Value)")
      .def_property_readonly("dtc", [](py::handle s) { return self_of<PyMove>(s, "MoveValue").dtc; },
                             "The move's DTC value (a Value), or None when a DTC table it needs is missing")
      .def("__repr__", [](py::handle s) {
        const PyMove& x = self_of<PyMove>(s, "MoveValue");
        return "MoveValue(" + x.move + ", dtw " + value_short(x.dtw.value, Metric::DTW) + ")";
      }, "MoveValue(c3-d4, dtw win in 3)");

  py::class_<PyTablebase>(m, "Tablebase",
                          "Tables of one variant under a folder (the folder given to `damka generate -o`).\n"
                          "Thread-safe: probes release the GIL.")
      .def(py::init<const std::string&, const std::filesystem::path&, std::size_t>(), py::arg("variant"),
           py::arg("folder"), py::arg("cache_mb") = 64,
           "Opens the tables of `variant` under `folder` (the folder given to `damka generate -o`, or its variant "
           "subfolder), decompressed blocks held in a cache of `cache_mb` MiB. Raises damka.Error when the "
           "variant is unknown or the folder cannot be read.")
      .def_property_readonly("variant", [](py::handle s) { return self_of<PyTablebase>(s, "Tablebase").variant(); },
                             "The variant's name ('russian', ...)")
      .def_property_readonly("folder", [](py::handle s) { return self_of<PyTablebase>(s, "Tablebase").folder(); },
                             "Where the files are read: <folder>/<family>")
      .def_property_readonly("max_pieces",
                             [](py::handle s) { return self_of<PyTablebase>(s, "Tablebase").max_pieces(); },
                             "The most pieces of any table present (0: no tables)")
      .def("probe", [](py::handle s, const std::string& fen, const std::string& metric) {
             const PyTablebase& t = self_of<PyTablebase>(s, "Tablebase");
             return t.probe(t.from_fen(fen), metric);
           }, py::arg("fen"), py::arg("metric") = "wdl", "The value of a FEN position for its side to move")
      .def("probe", [](py::handle s, std::uint32_t wm, std::uint32_t wk, std::uint32_t bm, std::uint32_t bk,
                       const py::object& side, const std::string& metric) {
             const PyTablebase& t = self_of<PyTablebase>(s, "Tablebase");
             return t.probe(PyTablebase::from_bitboards(wm, wk, bm, bk, side_named(side)), metric);
           }, py::arg("white_men"), py::arg("white_kings"), py::arg("black_men"), py::arg("black_kings"),
           py::arg("side") = "white", py::arg("metric") = "wdl",
           "The value of a position from bitboards (bit s = square s, a1 = 0 ... h8 = 31)")
      .def("moves", [](py::handle s, const std::string& fen) {
             const PyTablebase& t = self_of<PyTablebase>(s, "Tablebase");
             return t.moves(t.from_fen(fen));
           }, py::arg("fen"), "Every legal move with its value, best first")
      .def("pv", [](py::handle s, const std::string& fen) {
             const PyTablebase& t = self_of<PyTablebase>(s, "Tablebase");
             return t.pv(t.from_fen(fen));
           }, py::arg("fen"), "The principal variation to the end of the game (empty for a draw)")
      .def("judge", [](py::handle s, const std::string& fen, const std::string& rulebook, int moves_played) {
             return self_of<PyTablebase>(s, "Tablebase").judge(fen, rulebook, moves_played);
           }, py::arg("fen"), py::arg("rulebook") = "russian-federation", py::arg("moves_played") = 0,
           "The draw statutes' verdict on a position (a dict: wins_in_time, deciding clause, summary, ...)")
      .def("__repr__", [](py::handle s) {
        const PyTablebase& t = self_of<PyTablebase>(s, "Tablebase");
        return "Tablebase(" + t.variant() + ", " + t.folder() + ", up to " + std::to_string(t.max_pieces()) +
               " pieces)";
      }, "Tablebase(russian, data/tables/russian, up to 4 pieces)");

  m.def("perft", &py_perft, py::arg("variant"), py::arg("depth"), py::arg("fen") = "", py::arg("paths") = false,
        "Leaves of the move tree at `depth` plies (identical capture paths merged unless paths=True)");
  m.def("variants", [] {
    std::vector<std::string> v;
    for (Variant x : all_variants()) v.emplace_back(rules_of(x).name);
    return v;
  }, "The variants' names");
  m.def("table_family", [](const std::string& variant) { return table_family(rules_named(variant)); }, py::arg("variant"),
        "The subfolder holding a variant's tables (Filipino shares Brazilian's)");
  m.attr("__version__") = "0.1.0";
}
