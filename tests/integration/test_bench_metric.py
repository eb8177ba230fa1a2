"""Gates from the command line on a metric of the bench's own (issue 21 §4):
`abev bench --metric 'parse_ms[ms]=stdout:REGEX' --max-regression parse_ms=5`
makes the plan's metric, compares it with wall, cpu and max_rss and judges
its gate; a --metric that is no NAME[UNIT]=SOURCE:ARG is refused before
anything runs."""
import os

from test_bench import BenchTestCase


class TestBenchMetric(BenchTestCase):
    def test_a_metric_of_its_own_is_gated(self):
        cp = self.bench("--metric", "parse_ms[ms]=stdout:parse took ([0-9.]+) ms",
                        "--metric", "faults=process:minflt",
                        "--max-regression", "parse_ms=5",
                        "echo parse took 10 ms", "echo parse took 12 ms", "-r", "6",
                        "--unsigned", "--out", "ev", check=5)
        self.assertRegex(cp.stdout, r"(?m)^  \S+ +parse_ms .*gate ≤ \+5\.00%: FAIL$")
        self.assertRegex(cp.stdout, r"(?m)^  \S+ +faults ")
        plan = self.load("ev", "plan.json")
        self.assertEqual(plan["metrics"], [
            {"name": "parse_ms", "unit": "ms", "source": "stdout",
             "pattern": "parse took ([0-9.]+) ms"},
            {"name": "faults", "source": "process", "field": "minflt"}])
        self.assertEqual(plan["gates"], {"parse_ms": {"max_regression_pct": 5}})
        inv = self.invocations("ev")[1]
        self.assertEqual(inv["metrics"]["parse_ms"], 12)

    def test_init_keeps_the_metrics_given(self):
        self.run_in("init", "--from-bench", "--metric", "t=duration:Suite.*", "true",
                    "--results", "{run_dir}/r.xml", "--out", "p.json", check=0)
        self.assertEqual(self.load("p.json")["metrics"],
                         [{"name": "t", "source": "duration", "test": "Suite.*"}])

    def test_bad_metrics_are_refused(self):
        for spec, words in (("parse_ms", "expected NAME[UNIT]=SOURCE:ARG"),
                            ("p=stdout", "expected NAME[UNIT]=SOURCE:ARG"),
                            ("p=disk:x", "the source 'disk' is none of"),
                            ("p[ms]=stdout:", "nothing after 'stdout:'"),
                            ("p=stdout:([0-9]+)", "metrics[0].unit: missing"),
                            ("p=process:minflts", "did you mean 'minflt'")):
            cp = self.bench("--metric", spec, "true", "--out", "ev", check=2)
            self.assertIn(words, cp.stderr, spec)
            self.assertFalse(os.path.exists(self.path("ev")))
        cp = self.bench("--metric", "a=process:minflt", "--metric", "a=process:majflt", "true",
                        check=2)
        self.assertIn("--metric 'a' given twice", cp.stderr)
