"""The decision says why there is nothing to compare (issue 21 §1): the four
failure shapes a new user meets first — a failing command, a command that
is not found, tests that were all skipped, a metric glob that matches no
test — each end with a decision line that names the cause, the report's
verdict says the same, and the JUnit export shows it as a failure. The
comparison in result.json carries the codes and what they rest on
("missing"); the words above are rendered from them."""
import glob
import json
import os
import xml.etree.ElementTree as ET

from common import DEMO, AbevTestCase


class Why(AbevTestCase):
    def bench(self, *commands, runs=2, expect=1):
        out = self.path("ev")
        p = self.abev("bench", *commands, "-r", str(runs), "--out", out, check=expect)
        return p, out

    def decision_line(self, p):
        lines = [l for l in (p.stdout + p.stderr).splitlines() if l.startswith("decision:")]
        self.assertEqual(len(lines), 1, p.stdout + p.stderr)
        return lines[0]

    def junit_failures(self, ev):
        p = self.abev("export", "--format", "junit", ev, check=None)
        self.assertNotIn("is not the one its invocations give", p.stderr)
        root = ET.fromstring(p.stdout)
        return [(tc.get("classname"), tc.get("name"), tc.find("failure").get("message"))
                for tc in root.iter("testcase") if tc.find("failure") is not None]

    def report(self, ev):
        with open(os.path.join(ev, "report.md"), encoding="utf-8") as f:
            return f.read()

    def test_a_failing_command(self):
        p, ev = self.bench("true", "false")
        why = "'false' has no counted run: all 2 runs failed: exit_code guard failed: " \
              "exited with code 1 (allowed: 0)"
        self.assertIn(why, self.decision_line(p))
        # The report's verdict says the same, in Markdown.
        self.assertIn("**Decision: no decision: the plan sets no gate; "
                      + why.replace("_", "\\_"), self.report(ev))
        fails = self.junit_failures(ev)
        self.assertIn(("abev.runs.false", "counted runs"), [(c, n) for c, n, _ in fails])
        self.assertTrue(any(why in m for _, _, m in fails), fails)
        with open(os.path.join(ev, "result.json")) as f:
            missing = json.load(f)["comparison"]["missing"]
        self.assertEqual(len(missing), 1)
        m = missing[0]
        self.assertEqual((m["variant"], m["metric"], m["code"], m["runs"], m["shared"],
                          m["status"], m["reason"]),
                         ("false", None, "no_counted_runs", 2, 2, "failed",
                          "exit_code guard failed: exited with code 1 (allowed: 0)"))

    def test_a_command_not_found_is_refused_before_the_first_run(self):
        # A plain command line's program is looked up on the PATH first: the plan
        # is refused (exit 2), nothing runs and no evidence is left.
        out = self.path("ev")
        p = self.abev("bench", "true", "abev-no-such-command-x --flag", "-r", "2", "--out", out,
                      check=2)
        self.assertIn("program 'abev-no-such-command-x' is not on the PATH", p.stderr)
        self.assertIn("exit 127", p.stderr)
        self.assertFalse(os.path.exists(out))
        # Shell words and builtins are not taken for programs.
        self.abev("bench", "true", "cd . && true", "-r", "1", "--out", self.path("ev2"),
                  check=0)

    def test_a_command_not_found_inside_a_shell_line(self):
        # What the check cannot see without running a shell ends in the decision.
        p, ev = self.bench("true", "cd . && abev-no-such-command-x")
        line = self.decision_line(p)
        self.assertIn("has no counted run", line)
        self.assertIn("exited with code 127", line)
        # The shell's own words, from the end of the run's stderr.log.
        self.assertIn("its stderr ends:", line)
        self.assertIn("not found", line.split("its stderr ends:")[1])
        self.assertTrue(any("not found" in m for _, _, m in self.junit_failures(ev)))

    def test_stderr_is_quoted_escaped_and_short(self):
        # Control characters are shown, not obeyed; only the last lines are kept.
        cmd = "sh -c 'for i in 1 2 3 4 5; do echo line$i >&2; done; printf \"\\033[2J\\n\" >&2; exit 3'"
        p, ev = self.bench("true", cmd)
        line = self.decision_line(p)
        self.assertNotIn("\x1b", line)
        self.assertIn("line4\\nline5", line)
        self.assertNotIn("line2", line)

    def test_tests_all_skipped(self):
        plan = {
            "schema": "abev.plan/1", "name": "skipped",
            "variants": [
                {"name": "base", "command": [DEMO, "--trx", "{run_dir}/suite.trx"]},
                {"name": "cand", "command": [DEMO, "--trx", "{run_dir}/suite.trx",
                                             "--only", "no_such_test"]},
            ],
            "schedule": {"runs": 2},
            "results": {"files": "{run_dir}/*.trx"},
            "load": {"max_cpu_wait_pct": 100, "max_foreign_cpu": 64, "max_repeats": 0},
        }
        ev = self.path("ev")
        p = self.abev("run", self.write_plan(plan), "--out", ev, check=None)
        self.assertNotEqual(p.returncode, 0)
        line = self.decision_line(p)
        self.assertIn("min_executed guard", line)
        self.assertIn("'cand' has no counted run", line)
        fails = self.junit_failures(ev)
        self.assertTrue(any(c == "abev.tests" for c, _, _ in fails), fails)
        self.assertTrue(any(c == "abev.runs.cand" for c, _, _ in fails), fails)

    def test_a_metric_glob_that_matches_no_test(self):
        plan = {
            "schema": "abev.plan/1", "name": "glob",
            "variants": [
                {"name": "base", "command": [DEMO, "--trx", "{run_dir}/suite.trx"]},
                {"name": "cand", "command": [DEMO, "--trx", "{run_dir}/suite.trx"],
                 "env": {"DEMO_IMPL": "candidate"}},
            ],
            "schedule": {"runs": 3, "warmups": 1},
            "results": {"files": "{run_dir}/*.trx"},
            "metrics": [{"name": "sieve", "source": "duration", "test": "prime_seive"}],
            "load": {"max_cpu_wait_pct": 100, "max_foreign_cpu": 64, "max_repeats": 0},
        }
        ev = self.path("ev")
        p = self.abev("run", self.write_plan(plan), "--out", ev, check=None)
        line = self.decision_line(p)
        self.assertIn("metric 'sieve' has no value in any counted run of 'cand'", line)
        # The metrics guard's reason names the nearest test names.
        self.assertIn("prime_sieve", line)
        # wall, cpu and max_rss are still compared.
        self.assertNotIn("n/a (no counted run)", p.stdout + p.stderr)
        fails = self.junit_failures(ev)
        self.assertIn(("abev.runs.cand", "metric sieve"), [(c, n) for c, n, _ in fails])
        with open(os.path.join(ev, "result.json")) as f:
            missing = json.load(f)["comparison"]["missing"]
        m = [x for x in missing if x["variant"] == "cand"][0]
        self.assertEqual((m["metric"], m["code"]), ("sieve", "metric_no_value"))
        self.assertIn("prime_sieve", m["reason"])
        # A typo no further round mends: the plan stopped after the first (warmups
        # yield no metrics and do not hide it).
        with open(os.path.join(ev, "result.json")) as f:
            notes = json.load(f)["notes"]
        self.assertTrue(any("stopped the plan after round 1: metric 'sieve' matched no test"
                            in n for n in notes), notes)
