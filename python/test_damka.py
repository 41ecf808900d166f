"""Tests of the `damka` Python module, run by ctest with Debian's python3.

argv[1]: a folder of Russian tables holding 3Kv1K and what it needs; the
environment's DAMKA_EXE is the `damka` tool, whose JSON answers the module's
answers are checked against.
"""
import json
import os
import subprocess
import sys
import threading
import time
import unittest

import damka

TABLES = sys.argv[1] if len(sys.argv) > 1 else "data/tables"
EXE = os.environ.get("DAMKA_EXE", "damka")
FEN = "W:WKa1,Kc3,Ke5:BKh8"


def cli(*args):
    r = subprocess.run([EXE, *args, "--json"], capture_output=True, text=True)
    return r.returncode, json.loads(r.stdout)


def bit(square):  # "a1" -> bit of damka's numbering (a1 = 0 ... h8 = 31)
    f, r = ord(square[0]) - ord("a"), int(square[1]) - 1
    return 1 << (r * 4 + f // 2)


class Module(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tb = damka.Tablebase("russian", TABLES)

    def test_open(self):
        self.assertEqual(self.tb.variant, "russian")
        self.assertTrue(self.tb.folder.endswith("russian"))
        self.assertEqual(self.tb.max_pieces, 4)
        self.assertIn("russian", damka.variants())
        self.assertEqual(damka.table_family("filipino"), "brazilian")

    def test_probe_matches_the_tool(self):
        code, j = cli("probe", "-v", "russian", "--tables", TABLES, FEN)
        self.assertEqual(code, 0, j)
        for metric in ("wdl", "dtw", "dtc"):
            v = self.tb.probe(FEN, metric)
            self.assertEqual(v.result, j[metric]["result"], metric)
            self.assertEqual(v.plies, j[metric].get("plies", 0), metric)
        moves = self.tb.moves(FEN)
        self.assertEqual([m.move for m in moves], [m["move"] for m in j["moves"]])
        self.assertEqual([m.dtw.plies for m in moves if m.dtw.result != "draw"],
                         [m["dtw"] for m in j["moves"] if m["dtw"] is not None])

    def test_bitboards_equal_fen(self):
        wk = bit("a1") | bit("c3") | bit("e5")
        bk = bit("h8")
        for metric in ("wdl", "dtw", "dtc"):
            self.assertEqual(self.tb.probe(0, wk, 0, bk, "white", metric), self.tb.probe(FEN, metric))
            self.assertEqual(self.tb.probe(0, wk, 0, bk, 1, metric), self.tb.probe("B:WKa1,Kc3,Ke5:BKh8", metric))

    def test_pv_ends_the_game(self):
        pv = self.tb.pv(FEN)
        dtw = self.tb.probe(FEN, "dtw")
        self.assertEqual(dtw.result, "win")
        self.assertEqual(len(pv), dtw.plies)
        code, j = cli("probe", "-v", "russian", "--tables", TABLES, "--pv", FEN)
        self.assertEqual(pv, j["pv"])

    def test_statute_verdict(self):
        v = self.tb.judge(FEN, "russian-federation", 10)
        code, j = cli("probe", "-v", "russian", "--tables", TABLES, "--rulebook", "russian-federation",
                      "--moves", "2.1.9.1.3=10,2.1.9.1.4=10,2.1.9.1.5=10,2.1.9.1.7=10,2.1.9.1.8=10", FEN)
        self.assertEqual(v["wins_in_time"], j["statutes"]["wins_in_time"])
        self.assertEqual(v["summary"], j["statutes"]["summary"])
        self.assertEqual(v["moves_played"], 10)

    def test_perft(self):
        self.assertEqual([damka.perft("russian", d) for d in range(1, 5)], [7, 49, 302, 1469])
        code, j = cli("perft", "-v", "english", "-d", "5")
        self.assertEqual(damka.perft("english", 5), j["depths"][-1]["leaves"])

    def test_objects_made_by_new_alone_are_refused_not_read(self):
        # __new__ without __init__ gives memory holding no object: every use
        # is a TypeError naming the problem (it used to crash or read garbage).
        for cls, uses in ((damka.Value, (repr, lambda o: o.result, lambda o: o.plies, lambda o: o.metric)),
                          (damka.MoveValue, (repr, lambda o: o.move, lambda o: o.dtw, lambda o: o.dtc)),
                          (damka.Tablebase, (repr, lambda o: o.max_pieces, lambda o: o.variant,
                                             lambda o: o.probe(FEN), lambda o: o.moves(FEN), lambda o: o.pv(FEN),
                                             lambda o: o.judge(FEN)))):
            blank = cls.__new__(cls)
            for use in uses:
                with self.assertRaisesRegex(TypeError, "__new__ without __init__"):
                    use(blank)
        good = self.tb.probe(FEN, "dtw")
        with self.assertRaisesRegex(TypeError, "__new__ without __init__"):
            good == damka.Value.__new__(damka.Value)
        self.assertFalse(good == 3)
        self.assertTrue(good == self.tb.probe(FEN, "dtw"))

    def test_errors_are_exceptions_with_messages(self):
        with self.assertRaisesRegex(damka.Error, "unknown variant 'klingon'"):
            damka.Tablebase("klingon", TABLES)
        with self.assertRaisesRegex(damka.Error, "bad FEN"):
            self.tb.probe("W:Wz9:Bh8")
        with self.assertRaisesRegex(damka.Error, "unknown metric"):
            self.tb.probe(FEN, "dtz")
        with self.assertRaisesRegex(damka.Error, "invalid position"):
            self.tb.probe(bit("a1"), 0, bit("a1"), 0)
        with self.assertRaisesRegex(damka.UnknownError, "no wdl table for 2Kv2K"):
            self.tb.probe("W:WKa1,Kc3:BKh8,Kf8")
        self.assertTrue(issubclass(damka.UnknownError, damka.Error))
        with self.assertRaisesRegex(damka.Error, "no-such-book"):
            self.tb.judge(FEN, "no-such-book")
        with self.assertRaises(damka.Error):
            damka.Tablebase("russian", os.path.join(TABLES, "no-such-folder"))

    def test_threads_probe_without_the_gil(self):
        expected = self.tb.probe(FEN, "dtw")
        results, errors = [], []

        def work():
            try:
                for _ in range(200):
                    results.append(self.tb.probe(FEN, "dtw"))
            except Exception as e:  # noqa: BLE001
                errors.append(e)
        threads = [threading.Thread(target=work) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])
        self.assertEqual(len(results), 800)
        self.assertTrue(all(r == expected for r in results))

        # While perft runs in another thread, this one keeps running Python:
        # the GIL is released for the whole call.
        done = {}

        def long_perft():
            t0 = time.monotonic()
            done["n"] = damka.perft("russian", 10)
            done["s"] = time.monotonic() - t0
        t = threading.Thread(target=long_perft)
        t.start()
        ticks = []
        while t.is_alive():
            ticks.append(time.monotonic())
            time.sleep(0.001)
        t.join()
        self.assertEqual(done["n"], 22444032)
        self.assertGreater(len(ticks), 5)
        longest_gap = max(b - a for a, b in zip(ticks, ticks[1:]))
        self.assertLess(longest_gap, 0.5 * done["s"], (longest_gap, done["s"]))


def undocumented(module):
    """Names of the module's public classes, functions, methods and properties
    that have no docstring of their own (pybind11's signature lines do not count;
    an overloaded function needs a docstring for every overload)."""
    import inspect
    import re
    missing = []

    def own_text(name, doc):
        texts, current = [], None
        for line in (doc or "").splitlines():
            if line == "%s(*args, **kwargs)" % name:
                continue  # the header of an overloaded function
            if re.match(r"^(\d+\. )?%s\(" % re.escape(name), line):
                current = []
                texts.append(current)
            elif line.strip() and line.strip() != "Overloaded function." and current is not None:
                current.append(line)
        return texts and all(texts)

    if not (module.__doc__ or "").strip():
        missing.append(module.__name__)
    for name, obj in vars(module).items():
        if name.startswith("_"):
            continue
        if inspect.isclass(obj):
            if not (obj.__doc__ or "").strip():
                missing.append(name)
            for attr, member in vars(obj).items():
                if attr.startswith("__") and attr not in ("__init__", "__eq__", "__repr__"):
                    continue
                if attr == "__init__" and (member.__doc__ or "").startswith("Initialize self"):
                    continue  # no constructor from Python (made by the module only)
                if isinstance(member, property):
                    if not (member.__doc__ or "").strip():
                        missing.append(name + "." + attr)
                elif callable(member) and not own_text(attr, member.__doc__):
                    missing.append(name + "." + attr)
        elif callable(obj) and not own_text(name, obj.__doc__):
            missing.append(name)
    return missing


class Readme(unittest.TestCase):
    def test_the_readme_examples_answer_as_shown(self):
        """Each line of the README's Python example whose comment shows an
        answer (a Value, a list, a number) gives that answer (a list ending in
        ', ...]' by its beginning)."""
        import re
        with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "README.md")) as f:
            readme = f.read()
        block = readme.split("```python\n", 1)[1].split("```", 1)[0]
        scope = {"damka": damka, "tb": damka.Tablebase("russian", TABLES)}
        checked = 0
        for line in block.splitlines():
            m = re.match(r"^(.*?)\s+# (Value\(.*|\[.*|\d+)$", line)
            if not m or line.startswith("import"):
                continue
            shown = m.group(2)
            got = repr(eval(m.group(1), scope))
            if shown.endswith(", ...]"):
                self.assertTrue(got.startswith(shown[:-5]), (line, got[:200]))
            else:
                self.assertEqual(got, shown, line)
            checked += 1
        self.assertGreaterEqual(checked, 4)


class Docs(unittest.TestCase):
    def test_every_class_method_and_property_has_a_docstring(self):
        self.assertEqual(undocumented(damka), [])
        # The check itself sees a missing docstring.
        import types
        fake = types.ModuleType("fake", "a module")
        fake.f = lambda: 0
        self.assertEqual(undocumented(fake), ["f"])


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)
