"""What abev bench prints on the terminal, as hyperfine prints it: each
command's block of times (Time (mean ± σ), Range (min … max), the runs,
User and System), without a gate a verdict that still gives the
wall-time ratio, marked as not gated, and colours on a terminal only
(run under a pty), never with NO_COLOR or TERM=dumb, never in the
evidence. The figures are checked against what result.json recorded of
the same runs, never against the clock.

Every bench passes --max-cpu-wait-pct 100 and --max-load-wait 0: the
machine is shared, and contention is not what these tests are about."""
import json
import os
import pty
import re
import subprocess
import unittest

from common import ABEV, AbevTestCase

QUIET_LOAD = ("--max-cpu-wait-pct", "100", "--max-load-wait", "0")
UNIT_MS = {"ns": 1e-6, "µs": 1e-3, "ms": 1.0, "s": 1e3}
NUM = r"([0-9.]+) (ns|µs|ms|s)"
SGR = re.compile(rb"\x1b\[[0-9;]*m")


class BenchTerminalCase(AbevTestCase):
    def bench(self, *args, env=None):
        """abev bench with args in the scratch directory, stdout piped; completed."""
        e = dict(os.environ)
        e.update(env or {})
        cp = subprocess.run([ABEV, "bench", *args, *QUIET_LOAD], capture_output=True,
                            text=True, timeout=300, cwd=self.tmp, stdin=subprocess.DEVNULL,
                            env=e)
        self.assertEqual(cp.returncode, 0, cp.stdout + cp.stderr)
        return cp

    def wall(self, ev):
        """result.json's wall samples by variant."""
        with open(self.path(ev, "result.json"), encoding="utf-8") as f:
            cmp = json.load(f)["comparison"]
        m = next(m for m in cmp["metrics"] if m["name"] == "wall" and m["source"] == "builtin")
        return {s["variant"]: s for s in m["variants"]}

    def assert_shown(self, text, unit, recorded):
        """A figure as shown stands for the recorded one (ms), to its printed digits."""
        shown = float(text) * UNIT_MS[unit]
        decimals = len(text.split(".")[1]) if "." in text else 0
        self.assertLessEqual(abs(shown - recorded), 0.51 * 10 ** -decimals * UNIT_MS[unit],
                             f"{text} {unit} shown for {recorded} ms")


class TestFigures(BenchTerminalCase):
    def test_one_command_prints_its_times(self):
        cp = self.bench("-N", "sleep 0.01", "-r", "3", "--out", "ev")
        lines = cp.stdout.splitlines()
        self.assertIn("Benchmark 1: sleep-0.01", lines)
        at = lines.index("Benchmark 1: sleep-0.01")
        time = re.fullmatch(r"  Time \(mean ± σ\): +" + NUM + r" ± +" + NUM +
                            r" +\[User: " + NUM + r", System: " + NUM + r"\]", lines[at + 1])
        self.assertIsNotNone(time, lines[at + 1])
        rng = re.fullmatch(r"  Range \(min … max\): +" + NUM + r" … +" + NUM + r" +(\d+) runs",
                           lines[at + 2])
        self.assertIsNotNone(rng, lines[at + 2])
        # One unit for the whole block, chosen from the mean, as hyperfine.
        units = set(time.groups()[1::2]) | set(rng.groups()[1:4:2])
        self.assertEqual(len(units), 1, lines[at + 1:at + 3])
        s = self.wall("ev")["sleep-0.01"]
        self.assertEqual(int(rng.group(5)), s["n"])
        self.assertEqual(s["n"], 3)
        self.assert_shown(time.group(1), time.group(2), s["mean"])
        self.assert_shown(time.group(3), time.group(4), s["sd"])
        self.assert_shown(rng.group(1), rng.group(2), s["min"])
        self.assert_shown(rng.group(3), rng.group(4), s["max"])
        # The block comes before the decision, which has nothing to compare.
        decision = next(i for i, l in enumerate(lines) if l.startswith("decision: "))
        self.assertGreater(decision, at + 2)
        self.assertEqual(lines[decision], "decision: no decision: the plan sets no gate")
        with open(self.path("ev", "report.md"), encoding="utf-8") as f:
            self.assertNotIn("Benchmark 1:", f.read())

    def test_a_single_run_has_no_spread(self):
        cp = self.bench("-N", "true", "-r", "1", "--out", "ev")
        lines = cp.stdout.splitlines()
        at = lines.index("Benchmark 1: true")
        self.assertRegex(lines[at + 1], r"^  Time \(abs ≡\): +" + NUM + r" +\[User: ")
        self.assertFalse(lines[at + 2].startswith("  Range"), lines[at + 2])

    def test_each_command_has_its_block_before_the_comparison(self):
        cp = self.bench("-N", "true", "sleep 0.001", "-n", "a", "-n", "b", "-r", "2",
                        "--out", "ev")
        lines = cp.stdout.splitlines()
        a, b = lines.index("Benchmark 1: a"), lines.index("Benchmark 2: b")
        decision = next(i for i, l in enumerate(lines) if l.startswith("decision: "))
        self.assertLess(a, b)
        self.assertLess(b, decision)
        self.assertRegex(lines[b + 2], r"^  Range \(min … max\): .* 2 runs$")
        # The comparison's rows follow, one format for both.
        self.assertRegex(lines[decision + 1], r"^  b +wall ")

    def test_quiet_and_json_keep_stdout_to_themselves(self):
        cp = self.bench("-N", "true", "-r", "1", "--out", "q", "--quiet")
        self.assertNotIn("Benchmark 1", cp.stdout + cp.stderr)
        cp = self.bench("-N", "true", "-r", "1", "--out", "j", "--json")
        json.loads(cp.stdout)
        self.assertIn("Benchmark 1: true", cp.stderr)


class TestUngated(BenchTerminalCase):
    def test_verdict_gives_the_ratio_without_a_gate(self):
        cp = self.bench("-N", "true", "sleep 0.002", "-n", "a", "-n", "b", "-r", "6",
                        "--out", "ev")
        line = next(l for l in cp.stdout.splitlines() if l.startswith("decision: "))
        prefix = "decision: no decision: the plan sets no gate; not a gated decision, " \
                 "by wall time: "
        self.assertTrue(line.startswith(prefix), line)
        rest = line[len(prefix):]
        s = self.wall("ev")["b"]
        gi = s["gate_interval"]
        # Six rounds pair: the interval the gates would judge, and its estimate.
        self.assertIsNotNone(gi["point"], gi)
        lo, hi = gi["ratio"]
        est = gi["point"]
        if lo <= 1 <= hi:
            self.assertEqual(rest, f"'b' against 'a': no clear difference: {est:.2f}× "
                                   f"[{lo:.2f}, {hi:.2f}]")
        elif est >= 1:
            self.assertEqual(rest, f"'b' ran {est:.2f}× slower [{lo:.2f}, {hi:.2f}] than 'a'")
        else:
            self.assertEqual(rest, f"'b' ran {1 / est:.2f}× faster [{1 / hi:.2f}, "
                                   f"{1 / lo:.2f}] than 'a'")
        # report.md's verdict says the same.
        with open(self.path("ev", "report.md"), encoding="utf-8") as f:
            self.assertIn("not a gated decision, by wall time: ", f.read())

    def test_few_runs_say_why_there_is_no_interval(self):
        cp = self.bench("-N", "true", "true", "-n", "a", "-n", "b", "-r", "2", "--out", "ev")
        line = next(l for l in cp.stdout.splitlines() if l.startswith("decision: "))
        self.assertRegex(line, r"by wall time: 'b' (ran [0-9.]+× \w+ than 'a'|against 'a': "
                               r"[0-9.]+× \(no change\)) \(no interval: needs at least ")


class TestColour(BenchTerminalCase):
    def bench_on_pty(self, out, *args, env=None):
        """abev bench with stdout on a pseudo-terminal (stderr to a file): its stdout bytes."""
        e = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "TERM")}
        e.update(env or {})
        master, slave = pty.openpty()
        with open(self.path("stderr-" + out), "wb") as err:
            p = subprocess.Popen([ABEV, "bench", "-N", *args, "--out", out, *QUIET_LOAD],
                                 stdin=subprocess.DEVNULL, stdout=slave, stderr=err,
                                 cwd=self.tmp, env=e)
        os.close(slave)
        got = b""
        try:
            while True:
                try:
                    chunk = os.read(master, 65536)
                except OSError:   # EIO: the child closed the terminal
                    break
                if not chunk:
                    break
                got += chunk
        finally:
            os.close(master)
        self.assertEqual(p.wait(timeout=300), 0, got.decode(errors="replace"))
        self.assertIn(b"decision: ", got)
        return got

    def assert_evidence_plain(self, ev):
        """No file of the evidence holds an escape, raw or as JSON writes it."""
        for root, _, files in os.walk(self.path(ev)):
            for name in files:
                with open(os.path.join(root, name), "rb") as f:
                    data = f.read()
                self.assertNotIn(b"\x1b", data, os.path.join(root, name))
                self.assertNotIn(b"\\u001b", data.lower(), os.path.join(root, name))

    def test_colours_on_a_terminal(self):
        got = self.bench_on_pty("ev", "true", "true", "-r", "2", env={"TERM": "xterm"})
        self.assertRegex(got, SGR)
        # hyperfine's: the mean bold green, the runs dim, the compared variant magenta.
        self.assertRegex(got, rb"Time \(\x1b\[1;32mmean\x1b\[0m ")
        self.assertIn(b"\x1b[2m2 runs\x1b[0m", got)
        self.assertIn(b"\x1b[35mtrue-2\x1b[0m", got)
        self.assert_evidence_plain("ev")
        with open(self.path("stderr-ev"), "rb") as f:
            self.assertNotRegex(f.read(), SGR)

    def test_no_colour_where_it_is_not_wanted(self):
        for out, env, args in [("no-color", {"TERM": "xterm", "NO_COLOR": "1"}, ()),
                               ("dumb", {"TERM": "dumb"}, ()),
                               ("never", {"TERM": "xterm"}, ("--color", "never"))]:
            got = self.bench_on_pty(out, "true", "-r", "1", *args, env=env)
            self.assertNotRegex(got, SGR, out)
            self.assertIn(b"Benchmark 1: true", got)
        # An empty NO_COLOR does not count (no-color.org).
        got = self.bench_on_pty("empty", "true", "-r", "1", env={"TERM": "xterm", "NO_COLOR": ""})
        self.assertRegex(got, SGR)

    def test_piped_has_none_unless_asked(self):
        cp = self.bench("-N", "true", "-r", "1", "--out", "piped", env={"TERM": "xterm"})
        self.assertNotIn("\x1b", cp.stdout + cp.stderr)
        cp = self.bench("-N", "true", "-r", "1", "--out", "always", "--color=always",
                        env={"NO_COLOR": "1"})
        self.assertIn("\x1b[1;32m", cp.stdout)
        self.assert_evidence_plain("always")

    def test_verdict_words_are_coloured(self):
        # The same command twice, 6 rounds: the interval lies well within +1000 %.
        cp = self.bench("-N", "true", "true", "-r", "6", "--max-regression", "wall=1000",
                        "--out", "ev", "--color", "always")
        self.assertIn("decision: \x1b[32maccepted\x1b[0m: all 1 gate passed", cp.stdout)
        self.assertRegex(cp.stdout, r"gate ≤ \+1000\.00%: \x1b\[32mpass\x1b\[0m")
        self.assert_evidence_plain("ev")

    def test_color_takes_three_words_and_style_points_to_it(self):
        cp = subprocess.run([ABEV, "bench", "--color", "maybe", "true"], capture_output=True,
                            text=True, cwd=self.tmp)
        self.assertEqual(cp.returncode, 2)
        self.assertIn("'--color' takes auto, always or never", cp.stderr)
        cp = subprocess.run([ABEV, "bench", "--style", "basic", "true"], capture_output=True,
                            text=True, cwd=self.tmp)
        self.assertEqual(cp.returncode, 2)
        self.assertIn("--color=never", cp.stderr)
        self.assertFalse(os.path.exists(self.path("abev-evidence")))


if __name__ == "__main__":
    unittest.main()
