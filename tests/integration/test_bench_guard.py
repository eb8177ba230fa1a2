"""make bench's guard against slipping (issue 41), without timing anything:
the judgement of bench/ratios.py on scripted figures (a gross slip is a ratio
beyond twice its goal; the bias is reported, never failed on), the short
form's exit codes driven through BENCH_FAKE, and the dated table make bench
appends to a copy of bench/results.md, which keeps every older table and
marks a figure more than 10 % worse than the table before."""
import importlib
import json
import os
import re
import subprocess
import sys

from common import ABEV, SRC, AbevTestCase

sys.dont_write_bytecode = True  # nothing written under bench/
sys.path.insert(0, os.path.join(SRC, "bench"))
import ratios  # noqa: E402  (bench/ratios.py)

BENCH_PY = os.path.join(SRC, "bench", "bench.py")

# Figures a run might give, each goal met: seconds; ms for the bias; MiB for RSS.
GOOD = {"overhead": [0.12, 0.10], "bias": [1.0, 0.9], "trx": [0.25, 0.43],
        "trx-rss": [7.7, 4.9], "hash": [0.33, 0.73], "pack": [0.6, 1.0], "verify": [0.1, 1.0]}


class TestRatioRules(AbevTestCase):
    def test_gross_slip_is_beyond_twice_the_goal(self):
        cases = [("overhead", 3.0, False), ("overhead", 3.01, True), ("trx", 1.4, False),
                 ("trx", 1.41, True), ("hash", 1.01, True), ("pack", 1.4, False),
                 ("pack", 1.41, True), ("verify", 0.4, False), ("verify", 0.41, True),
                 ("trx-rss", 32.0, False), ("trx-rss", 32.1, True),
                 ("bias", 0.6, False), ("bias", -0.61, True), ("bias", 0.61, True)]
        for key, v, gross in cases:
            with self.subTest(key=key, value=v):
                self.assertEqual(ratios.gross(key, v), gross)

    def test_a_row_fails_beyond_its_fail_line(self):
        # Twice the goal, but for a provisional line (the overhead's, while
        # issue 41 is open): beyond it a row fails, below it it is reported.
        for g in ratios.GOALS:
            key = g["key"]
            line = g.get("fail_at", 2 * g["goal"])
            with self.subTest(key=key):
                self.assertEqual(ratios.fail_line(key), line)
                self.assertFalse(ratios.slipped(key, line))
                self.assertTrue(ratios.slipped(key, round(line + 0.01, 2)))
        self.assertEqual(ratios.fail_line("overhead"), 6.0)
        rows = [ratios.row("overhead", 0.5, 0.1, n=100)]
        self.assertTrue(rows[0]["gross"])
        self.assertFalse(rows[0]["slipped"])
        self.assertEqual(ratios.failures(rows, 2), [])
        self.assertIn("fails beyond 6.00x", ratios.render(rows))
        rows = [ratios.row("overhead", 0.61, 0.1, n=100)]
        self.assertEqual(len(ratios.failures(rows, 2)), 1)

    def test_met_is_at_most_the_goal(self):
        cases = [("overhead", 1.5, True), ("overhead", 1.51, False), ("pack", 0.7, True),
                 ("pack", 0.71, False), ("hash", 0.5, True), ("hash", 0.51, False),
                 ("verify", 0.2, True), ("trx-rss", 15.9, True), ("trx-rss", 16.1, False),
                 ("bias", -0.3, True), ("bias", 0.31, False)]
        for key, v, met in cases:
            with self.subTest(key=key, value=v):
                self.assertEqual(ratios.met(key, v), met)

    def test_only_the_bias_is_reported_without_failing(self):
        self.assertEqual([g["key"] for g in ratios.GOALS if not g["fails"]], ["bias"])
        rows = [ratios.row("bias", 2.0, 0.5), ratios.row("pack", 1.0, 1.0, size="x")]
        self.assertTrue(rows[0]["gross"])
        self.assertEqual(ratios.failures(rows, 2), [])
        rows.append(ratios.row("pack", 1.5, 1.0, size="x"))
        self.assertEqual([r["value"] for r in ratios.failures(rows, 2)], [1.5])

    def test_hashing_fails_only_with_a_second_cpu(self):
        rows = [ratios.row("hash", 1.1, 1.0, size="x")]
        self.assertEqual(len(ratios.failures(rows, 2)), 1)
        self.assertEqual(ratios.failures(rows, 1), [])

    def test_a_try_again_keeps_the_better_figure(self):
        # The short form measures a gross slip again and keeps the better try,
        # so that a ratio fails only when it is gross in every try.
        rows = [ratios.row("overhead", 0.4, 0.1, n=100), ratios.row("bias", 0.5, 0.9),
                ratios.row("pack", 1.5, 1.0, size="x"), ratios.row("verify", 0.1, 1.0, size="x")]
        again = [ratios.row("overhead", 0.2, 0.1, n=100), ratios.row("bias", 1.5, 0.9),
                 ratios.row("pack", 1.6, 1.0, size="x")]
        best = ratios.best_of(rows, again)
        self.assertEqual([(r["key"], r["value"]) for r in best],
                         [("overhead", 2.0), ("bias", -0.4), ("pack", 1.5), ("verify", 0.1)])
        self.assertEqual([r["key"] for r in ratios.failures(best, 2)], ["pack"])
        self.assertEqual(ratios.GROUPS, ["evidence", "overhead", "trx"])
        self.assertEqual({g["group"] for g in ratios.GOALS if g["key"] in ("hash", "pack")},
                         {"evidence"})

    def test_worse_is_more_than_ten_percent(self):
        cases = [("pack", 0.67, 0.60, True), ("pack", 0.65, 0.60, False),
                 ("pack", 0.50, 0.60, False), ("trx-rss", 8.9, 8.0, True),
                 ("trx-rss", 8.7, 8.0, False),
                 # the bias by more than 10 % of its 0.3 ms bound, either sign
                 ("bias", 0.20, 0.16, True), ("bias", 0.18, 0.16, False),
                 ("bias", -0.25, 0.20, True), ("bias", 0.05, -0.30, False)]
        for key, v, old, worse in cases:
            with self.subTest(key=key, value=v, old=old):
                self.assertEqual(ratios.worse(key, v, old), worse)


class TestShortForm(AbevTestCase):
    def short(self, figures, env=None):
        path = self.path("figures.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(figures, f)
        return subprocess.run([sys.executable, BENCH_PY], capture_output=True, text=True,
                              timeout=60, stdin=subprocess.DEVNULL,
                              env={**os.environ, "ABEV": ABEV, "BENCH_SHORT": "1",
                                   "BENCH_FAKE": path, **(env or {})})

    def rows(self, out):
        return {c[0]: c for c in ([x.strip() for x in line.strip().strip("|").split("|")]
                                  for line in out.splitlines() if line.startswith("| "))}

    def test_passes_when_every_ratio_is_within_twice_its_goal(self):
        # Every goal missed, none by twice: the short form passes.
        cp = self.short({**GOOD, "overhead": [0.3, 0.1], "pack": [1.4, 1.0],
                         "hash": [1.0, 1.0], "verify": [0.4, 1.0]})
        self.assertEqual(cp.returncode, 0, cp.stdout + cp.stderr)
        self.assertEqual(set(self.rows(cp.stdout)) - {"measure"}, set(GOOD))

    def test_fails_on_a_gross_slip(self):
        for key, figures in (("pack", [1.5, 1.0]), ("overhead", [0.61, 0.1]),
                             ("trx-rss", [33.0, 4.9]), ("verify", [0.5, 1.0])):
            with self.subTest(key=key):
                cp = self.short({**GOOD, key: figures}, {"BENCH_CPUS": "2"})
                self.assertEqual(cp.returncode, 1, cp.stdout + cp.stderr)

    def test_a_gross_bias_is_reported_not_failed(self):
        cp = self.short({**GOOD, "bias": [2.0, 0.5]})
        self.assertEqual(cp.returncode, 0, cp.stdout + cp.stderr)
        self.assertEqual(self.rows(cp.stdout)["bias"][4], "+1.500 ms")

    def test_hashing_on_one_cpu_is_reported_not_failed(self):
        figures = {**GOOD, "hash": [1.1, 1.0]}
        self.assertEqual(self.short(figures, {"BENCH_CPUS": "2"}).returncode, 1)
        cp = self.short(figures, {"BENCH_CPUS": "1"})
        self.assertEqual(cp.returncode, 0, cp.stdout + cp.stderr)

    def test_a_missing_stock_tool_is_told_apart(self):
        # No stock tool on PATH: exit 2, not a slip's 1, each named with its package.
        empty = self.path("empty-bin")
        os.mkdir(empty)
        cp = subprocess.run([sys.executable, BENCH_PY], capture_output=True, text=True,
                            timeout=60, stdin=subprocess.DEVNULL,
                            env={**os.environ, "ABEV": ABEV, "BENCH_SHORT": "1",
                                 "PATH": empty})
        self.assertEqual(cp.returncode, 2, cp.stdout + cp.stderr)
        for tool, package in (("hyperfine", "hyperfine"), ("xmllint", "libxml2-utils"),
                              ("zstd", "zstd"), ("openssl", "openssl"),
                              ("sha256sum", "coreutils")):
            self.assertIn(f"{tool} (apt-get install {package})", cp.stderr)


class TestHistory(AbevTestCase):
    def setUp(self):
        super().setUp()
        self.out = self.path("results.md")
        # The project's results.md with its history heading but none of its dated
        # tables: each test starts from no table before its own.
        with open(os.path.join(SRC, "bench", "results.md"), encoding="utf-8") as f:
            text = f.read()
        start = text.index("\n" + ratios.HISTORY_HEADING + "\n")
        first = text.find("\n### ", start)
        self.original = text if first < 0 else text[:first + 1]
        with open(self.out, "w", encoding="utf-8") as f:
            f.write(self.original)

    def append(self, figures):
        path = self.path("figures.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(figures, f)
        env = {k: v for k, v in os.environ.items() if k != "BENCH_SHORT"}
        cp = subprocess.run([sys.executable, BENCH_PY], capture_output=True, text=True,
                            timeout=60, stdin=subprocess.DEVNULL,
                            env={**env, "ABEV": ABEV, "BENCH_FAKE": path,
                                 "BENCH_OUT": self.out})
        self.assertEqual(cp.returncode, 0, cp.stdout + cp.stderr)
        with open(self.out, encoding="utf-8") as f:
            return cp, f.read()

    def tables(self, text):
        history = text[text.index("\n" + ratios.HISTORY_HEADING + "\n"):]
        return re.split(r"(?m)^### ", history)[1:]

    def rows(self, table):
        lines = [[c.strip() for c in l.strip().strip("|").split("|")]
                 for l in table.splitlines() if l.startswith("| ")]
        return {c[0]: dict(zip(lines[0], c)) for c in lines[1:]}

    def test_appends_and_keeps_older_tables(self):
        _, one = self.append(GOOD)
        self.assertTrue(one.startswith(self.original))
        self.assertEqual(one.count("\n" + ratios.HISTORY_HEADING + "\n"), 1)
        self.assertEqual(len(self.tables(one)), 1)
        first = self.tables(one)[0]
        # The first table has nothing to compare with.
        self.assertNotIn("against", self.rows(first)["pack"])
        self.assertEqual(set(self.rows(first)), set(GOOD))

        cp, two = self.append({**GOOD, "pack": [0.7, 1.0], "bias": [1.2, 0.9]})
        self.assertTrue(two.startswith(one))
        self.assertEqual(two.count("\n" + ratios.HISTORY_HEADING + "\n"), 1)
        tables = self.tables(two)
        self.assertEqual(len(tables), 2)
        self.assertEqual(tables[0], first + "\n")
        rows = self.rows(tables[1])
        against = [k for k in rows["pack"] if k.startswith("against ")]
        self.assertEqual(len(against), 1)
        # pack 0.60x -> 0.70x (+17 %) and the bias +0.100 -> +0.300 ms are worse;
        # the rest are the same figures.
        self.assertEqual(rows["pack"][against[0]], "+17 % **worse**")
        self.assertEqual(rows["bias"][against[0]], "+0.200 ms **worse**")
        self.assertEqual([k for k in rows if "worse" in rows[k][against[0]]], ["bias", "pack"])
        self.assertEqual(len(re.findall(r"(?m)^bench: (pack|bias) is more than 10 % worse",
                                        cp.stdout)), 2)

        # Better again: the third table compares with the second, and marks nothing.
        _, three = self.append(GOOD)
        self.assertTrue(three.startswith(two))
        rows = self.rows(self.tables(three)[2])
        self.assertEqual(rows["pack"][against[0]], "-14 %")
        self.assertFalse(any("worse" in r[against[0]] for r in rows.values()))

    def test_starts_the_history_in_a_file_without_one(self):
        with open(self.out, "w", encoding="utf-8") as f:
            f.write("# abev performance\n")
        _, text = self.append(GOOD)
        self.assertTrue(text.startswith("# abev performance\n\n" + ratios.HISTORY_HEADING + "\n"))
        self.assertEqual(len(self.tables(text)), 1)

    def test_a_rewrite_of_results_md_carries_the_history_over(self):
        # make bench rewrites its sections and keeps what follows them, the
        # history included, even in a file with no other kept section.
        with open(self.out, "w", encoding="utf-8") as f:
            f.write("# abev performance\n\n## Summary\n\nold\n")
        _, text = self.append(GOOD)
        os.environ["BENCH_OUT"] = self.out
        try:
            bench = importlib.import_module("bench")
            bench = importlib.reload(bench)
            kept = bench.kept_calibration()
        finally:
            del os.environ["BENCH_OUT"]
        self.assertEqual(kept, text[text.index("\n" + ratios.HISTORY_HEADING + "\n"):])
