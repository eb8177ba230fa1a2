"""abev bench's --export-json, --export-csv and --export-markdown are the
files hyperfine writes (issue 33 §3): hyperfine's own scripts read them
unchanged. The readers below are the reading code of hyperfine's
scripts/plot_whisker.py, plot_parametrized.py and advanced_statistics.py
(numpy's mean, std and percentiles replaced by statistics'), fed abev's
exports of a plain bench and of -L and -P scans; abev export --format
gives the same bytes from the evidence alone."""
import csv
import json
import re
import statistics

from test_bench import BenchTestCase


def plot_whisker(path):
    """plot_whisker.py: the labels and the samples it draws."""
    with open(path, encoding="utf-8") as f:
        results = json.load(f)["results"]
    labels = [b["command"] for b in results]
    times = [b["times"] for b in results]
    return labels, times


def plot_parametrized(path, parameter_name):
    """plot_parametrized.py: x (the parameter as a float), mean and stddev."""
    with open(path, encoding="utf-8") as f:
        results = json.load(f)["results"]
    parameter_values = [float(b["parameters"][parameter_name]) for b in results]
    times_mean = [b["mean"] for b in results]
    times_stddev = [b["stddev"] for b in results]
    return parameter_values, times_mean, times_stddev


def advanced_statistics(path):
    """advanced_statistics.py: per command its runs, mean, stddev and percentiles."""
    with open(path, encoding="utf-8") as f:
        results = json.load(f)["results"]
    out = []
    for command, ts in zip([b["command"] for b in results], [b["times"] for b in results]):
        qs = statistics.quantiles(ts, n=100, method="inclusive")
        out.append((command, len(ts), statistics.mean(ts), statistics.pstdev(ts), qs[4], qs[94]))
    return out


class TestHyperfineExports(BenchTestCase):
    def bench_exports(self, *args):
        files = {k: self.path("x." + k) for k in ("json", "csv", "md")}
        self.bench(*args, "-r", "2", "--unsigned", "--out", "ev", "--export-json",
                   files["json"], "--export-csv", files["csv"], "--export-markdown", files["md"])
        # abev export gives each file again, from the evidence alone.
        for fmt, k in (("hyperfine", "json"), ("hyperfine-csv", "csv"),
                       ("hyperfine-markdown", "md")):
            with open(files[k], encoding="utf-8") as f:
                self.assertEqual(self.run_in("export", "ev", "--format", fmt, check=0).stdout,
                                 f.read(), fmt)
        return files

    def check_json(self, path, commands):
        labels, times = plot_whisker(path)
        self.assertEqual(labels, commands)
        self.assertEqual([len(t) for t in times], [2] * len(commands))
        with open(path, encoding="utf-8") as f:
            results = json.load(f)["results"]
        for r in results:
            for key in ("mean", "stddev", "median", "user", "system", "min", "max"):
                self.assertIsInstance(r[key], (int, float), key)  # JSON numbers
            self.assertTrue(all(isinstance(t, (int, float)) for t in r["times"]))
            self.assertEqual(r["exit_codes"], [0, 0])
            self.assertTrue(r["min"] <= r["median"] <= r["max"])
            self.assertAlmostEqual(r["mean"], statistics.mean(r["times"]))
        stats = advanced_statistics(path)
        self.assertEqual([s[0] for s in stats], commands)
        self.assertEqual([s[1] for s in stats], [2] * len(commands))
        return results

    def check_csv(self, path, commands, params=None):
        with open(path, encoding="utf-8", newline="") as f:
            rows = list(csv.DictReader(f))
        want = ["command", "mean", "stddev", "median", "user", "system", "min", "max"]
        if params:
            want += ["parameter_" + p for p in params]
        self.assertEqual(list(rows[0].keys()), want)
        self.assertEqual([r["command"] for r in rows], commands)
        for r in rows:
            for key in want[1:8]:
                float(r[key])
        return rows

    def check_markdown(self, path, commands):
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
        self.assertIn(lines[0], ("| Command | Mean [ms] | Min [ms] | Max [ms] | Relative |",
                                 "| Command | Mean [s] | Min [s] | Max [s] | Relative |"))
        self.assertEqual(lines[1], "|:---|---:|---:|---:|---:|")
        self.assertEqual(len(lines), 2 + len(commands))
        cells = [[c.strip() for c in l.strip("|").split("|")] for l in lines[2:]]
        self.assertEqual([c[0] for c in cells], [f"`{c}`" for c in commands])
        for c in cells:
            self.assertRegex(c[1], r"^\d+\.\d+ ± \d+\.\d+$")
            self.assertRegex(c[4], r"^(1\.00|\d+\.\d\d ± \d+\.\d\d)$")
        self.assertEqual(sum(c[4] == "1.00" for c in cells), 1)

    def test_plain_bench(self):
        files = self.bench_exports("true", "sleep 0.001")
        results = self.check_json(files["json"], ["true", "sleep 0.001"])
        self.assertTrue(all("parameters" not in r for r in results))
        self.check_csv(files["csv"], ["true", "sleep 0.001"])
        self.check_markdown(files["md"], ["true", "sleep 0.001"])

    def test_list_scan(self):
        files = self.bench_exports("-L", "v", "1,2", "sleep 0.00{v}")
        commands = ["sleep 0.001", "sleep 0.002"]
        results = self.check_json(files["json"], commands)
        self.assertEqual([r["parameters"] for r in results], [{"v": "1"}, {"v": "2"}])
        x, mean, sd = plot_parametrized(files["json"], "v")
        self.assertEqual(x, [1.0, 2.0])
        self.assertEqual(mean, [r["mean"] for r in results])
        rows = self.check_csv(files["csv"], commands, ["v"])
        self.assertEqual([r["parameter_v"] for r in rows], ["1", "2"])
        self.check_markdown(files["md"], commands)

    def test_range_scan(self):
        files = self.bench_exports("-P", "ms", "1", "3", "sleep 0.00{ms}", "-N")
        commands = ["sleep 0.001", "sleep 0.002", "sleep 0.003"]
        self.check_json(files["json"], commands)
        x, _, sd = plot_parametrized(files["json"], "ms")
        self.assertEqual(x, [1.0, 2.0, 3.0])
        self.assertTrue(all(isinstance(s, (int, float)) for s in sd))
        rows = self.check_csv(files["csv"], commands, ["ms"])
        self.assertEqual([r["parameter_ms"] for r in rows], ["1", "2", "3"])
        self.check_markdown(files["md"], commands)

    def test_one_run_has_no_stddev(self):
        # As hyperfine: stddev is null with one run, and the table has no ±.
        self.bench("true", "-r", "1", "--unsigned", "--out", "ev", "--export-json",
                   self.path("x.json"), "--export-markdown", self.path("x.md"))
        with open(self.path("x.json"), encoding="utf-8") as f:
            self.assertIsNone(json.load(f)["results"][0]["stddev"])
        with open(self.path("x.md"), encoding="utf-8") as f:
            row = f.read().splitlines()[2]
        self.assertRegex(row, r"^\| `true` \| \d+\.\d \| \d+\.\d \| \d+\.\d \| 1\.00 \|$")
