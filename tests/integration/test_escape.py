"""Output a terminal cannot misread: text abev did not write (a directory,
an environment value, a version's output, a test's name, a command line, a
path given on the command line) reaches the terminal, report.md, the CSV
and SVG exports and the JSON evidence without a raw ESC, C1 control
(U+009B is an 8-bit CSI), bidirectional control or line separator; and a
plan cannot give such a character to a name."""
import csv
import io
import json
import os
import re
import subprocess

from common import ABEV, AbevTestCase, helper_plan, reseal

# ESC, the 8-bit CSI, RIGHT-TO-LEFT OVERRIDE, LINE SEPARATOR, and a raw 0x9b byte
# is added where bytes can be given (paths, output).
HOSTILE = "\x1b]0;PWNED\x07\u009b2J\u202eevil\u2028line"

# What must never appear raw: C0 controls other than tab and newline (ESC
# among them), DEL, C1, the bidirectional controls, LS and PS; as bytes
# decoded with surrogateescape, a lone 0x80-0x9f byte shows as U+DC80-U+DC9F.
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f\x80-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029"
                 "\udc80-\udc9f]")


def raw_chars(data):
    """The forbidden characters in data (bytes or str), as U+XXXX."""
    if isinstance(data, bytes):
        data = data.decode("utf-8", "surrogateescape")
    return sorted({f"U+{ord(c):04X}" for c in RAW.findall(data)})


def junit_writer():
    """A shell script that writes a JUnit file whose test names carry every
    class XML can hold (XML 1.0 has no ESC), one test failing, and prints a
    figure."""
    name = "t\u009b2J\u202eevil\u2028line"
    xml = ('<testsuite name="s"><testcase name="%s"/>'
           '<testcase name="%s-fails"><failure message="%s"/></testcase></testsuite>'
           % (name, name, name))
    return f"printf '%s' '{xml}' > \"$ABEV_RUN_DIR/r.xml\"; echo \"score: 5 $1\"; exit 1"


class CleanCase(AbevTestCase):
    def assert_clean(self, what, data):
        self.assertEqual(raw_chars(data), [], f"{what} holds raw controls:\n{data!r}")


class NothingRaw(CleanCase):
    def hostile_plan(self):
        wd = self.path("wd" + HOSTILE)
        os.mkdir(wd)
        script = junit_writer()
        plan = helper_plan([("a", []), ("b", [])], runs=1)
        for v in plan["variants"]:
            v["command"] = ["sh", "-c", script, "arg" + HOSTILE, "x" + HOSTILE]
            v["cwd"] = wd
            v["env"] = {"HOSTILE": "v" + HOSTILE}
        plan["versions"] = {"tool": ["printf", "1.0 %s\n", HOSTILE]}
        plan["results"] = {"files": "{run_dir}/r.xml"}
        plan["allowed_exit_codes"] = [1]
        plan["metrics"] = [{"name": "score", "source": "stdout", "pattern": "score: ([0-9]+)",
                            "unit": "pts"}]
        return self.write_plan(plan, name="plan" + HOSTILE + ".json")

    def test_run_report_exports_and_commands(self):
        out = self.path("ev" + HOSTILE)
        key = self.path("k" + HOSTILE)
        cp = subprocess.run([ABEV, "keygen", "--out", key], capture_output=True)
        self.assertEqual(cp.returncode, 0, cp.stderr)
        self.assert_clean("keygen", cp.stdout + cp.stderr)
        plan = os.path.basename(self.hostile_plan())
        cp = subprocess.run([ABEV, "run", plan, "--out", out, "--key", key + ".key"],
                            capture_output=True, stdin=subprocess.DEVNULL, cwd=self.tmp)
        # Another abev run on a shared machine may fail the runs (overlap): the text is the point.
        self.assertIn(cp.returncode, (0, 1, 5, 6), cp.stderr)
        self.assert_clean("abev run's stdout", cp.stdout)
        self.assert_clean("abev run's stderr", cp.stderr)
        self.assertIn(b"\\x1b]0;PWNED\\x07\\xc2\\x9b2J\\xe2\\x80\\xaeevil\\xe2\\x80\\xa8line", cp.stdout)
        report = open(os.path.join(out, "report.md"), "rb").read()
        self.assert_clean("report.md", report)
        # The failed test's name, the cwd, the environment, the version's output: escaped.
        self.assertIn(b"t\\xc2\\x9b2J\\xe2\\x80\\xaeevil\\xe2\\x80\\xa8line-fails", report)
        self.assertIn(b"HOSTILE=v\\x1b\\]0;PWNED\\x07", report)
        self.assertIn(b"| tool | 1.0 \\x1b\\]0;PWNED", report)
        # Commands to copy: quoted for sh, each such character a '?'.
        self.assertIn(b"abev run 'plan?]0;PWNED??2J?evil?line.json' --out NEW_DIR --key '", report)
        for name in sorted(os.listdir(os.path.join(out, "plots"))):
            with open(os.path.join(out, "plots", name), "rb") as f:
                self.assert_clean(name, f.read())
        for fmt in ("csv", "hyperfine", "junit", "json"):
            cp = subprocess.run([ABEV, "export", out, "--format", fmt], capture_output=True)
            self.assertEqual(cp.returncode, 0, cp.stderr)
            # RFC 4180 ends CSV records with CRLF.
            self.assert_clean(f"export --format {fmt}", cp.stdout.replace(b"\r\n", b"\n")
                              + cp.stderr)
        for args in (["report", out], ["compare", out, out], ["verify", out],
                     ["verify", out, "--pubkey", key + ".pub"],
                     ["report", out, "--pubkey", key + ".pub"],
                     ["pack", out, "--out", self.path("b" + HOSTILE + ".tar.gz")],
                     ["results", "--list", os.path.join(out, "invocations")]):
            cp = subprocess.run([ABEV, *args], capture_output=True)
            self.assert_clean(f"abev {args[0]}", cp.stdout + cp.stderr)
        # The JSON evidence holds the text as it was, with these characters as \u escapes.
        for name in ("result.json", "metadata.json"):
            with open(os.path.join(out, name), "rb") as f:
                data = f.read()
            self.assert_clean(name, data)
            self.assertIn("\u202e", json.dumps(json.loads(data), ensure_ascii=False))

    def test_guard_reasons(self):
        """A guard's reason names tests (test_set) and the result pattern, with the
        --out path in it (min_executed): the progress lines and the evidence's files
        show them escaped."""
        name = "t\u009b2J\u202eevil\u2028line"
        def writes(test):
            xml = f'<testsuite name="s"><testcase name="{test}"/></testsuite>'
            return ["sh", "-c", f"printf '%s' '{xml}' > \"$ABEV_RUN_DIR/r.xml\""]
        plan = helper_plan([("a", []), ("b", []), ("c", [])], runs=1)
        plan["variants"][0]["command"] = writes(name + "-1")
        plan["variants"][1]["command"] = writes(name + "-2")
        plan["variants"][2]["command"] = ["true"]
        plan["results"] = {"files": "{run_dir}/r.xml"}
        out = self.path("ev" + HOSTILE)
        cp = subprocess.run([ABEV, "run", self.write_plan(plan), "--out", out, "--unsigned"],
                            capture_output=True, stdin=subprocess.DEVNULL)
        self.assertIn(cp.returncode, (0, 1, 5, 6), cp.stderr)
        self.assertIn(b"missing 1: 't\\xc2\\x9b2J\\xe2\\x80\\xaeevil", cp.stderr)
        self.assertIn(b"no result file matched '", cp.stderr)
        self.assert_clean("abev run's stderr", cp.stderr)
        self.assert_clean("abev run's stdout", cp.stdout)
        for root, _, files in os.walk(out):
            for f in files:
                if f.endswith((".log", ".md", ".json", ".svg")):
                    with open(os.path.join(root, f), "rb") as fh:
                        self.assert_clean(os.path.join(root, f), fh.read())

    def test_bench_and_keygen_paths(self):
        out = self.path("ev" + HOSTILE)
        cp = subprocess.run([ABEV, "bench", "true '" + HOSTILE + "'", "true", "-r", "1",
                             "--max-cpu-wait-pct", "100", "--out", out],
                            capture_output=True, stdin=subprocess.DEVNULL)
        self.assertIn(cp.returncode, (0, 1), cp.stderr)      # 1: runs failed on a busy machine
        self.assert_clean("bench", cp.stdout + cp.stderr)
        cp = subprocess.run([ABEV, "keygen", "--out", self.path("k" + HOSTILE)],
                            capture_output=True)
        self.assertEqual(cp.returncode, 0, cp.stderr)
        self.assert_clean("keygen", cp.stdout + cp.stderr)
        cp = subprocess.run([ABEV, "verify", out, "--pubkey", self.path("k" + HOSTILE + ".pub")],
                            capture_output=True)
        self.assert_clean("verify --pubkey", cp.stdout + cp.stderr)
        cp = subprocess.run([ABEV, "run", self.path("no" + HOSTILE + ".json"), "--out", out],
                            capture_output=True)
        self.assertEqual(cp.returncode, 2)
        self.assert_clean("run of a missing plan", cp.stdout + cp.stderr)

    def test_results_paths(self):
        """abev results prints the files it was given, one row each."""
        path = self.path("r" + HOSTILE + ".xml")
        with open(path, "w", encoding="utf-8") as f:
            f.write('<testsuite name="s"><testcase name="a"/></testsuite>')
        for args in ([], ["--min-executed", "5"], ["--list"]):
            cp = subprocess.run([ABEV, "results", path, *args], capture_output=True)
            self.assertIn(cp.returncode, (0, 1), cp.stderr)
            self.assert_clean(f"abev results {args}", cp.stdout + cp.stderr)
            if args != ["--list"]:          # one file: --list has no file column
                self.assertIn(b"r\\x1b]0;PWNED\\x07", cp.stdout)

    def test_raw_bytes_in_paths(self):
        """A lone 0x9b byte (the 8-bit CSI, not UTF-8) in --out."""
        out = os.fsencode(self.tmp) + b"/ev\x9b2J\x1b[31m"
        cp = subprocess.run([os.fsencode(ABEV), b"bench", b"true", b"-r", b"1",
                             b"--max-cpu-wait-pct", b"100", b"--out", out],
                            capture_output=True, stdin=subprocess.DEVNULL)
        self.assertIn(cp.returncode, (0, 1), cp.stderr)
        self.assert_clean("bench", cp.stdout + cp.stderr)
        self.assertIn(b"\\x9b2J\\x1b[31m", cp.stdout)


class FromDisk(CleanCase):
    # The evidence is edited on purpose: its names no longer match the schema.
    validate_evidence_on_teardown = False

    def test_names_from_evidence_on_disk(self):
        """Evidence written elsewhere (or edited) may hold names a plan now refuses:
        whatever reads it back escapes them; CSV writes U+FFFD."""
        ev = self.path("ev")
        cp = subprocess.run([ABEV, "bench", "true", "sleep 0", "-r", "1", "--max-cpu-wait-pct",
                             "100", "--out", ev], capture_output=True, stdin=subprocess.DEVNULL)
        self.assertIn(cp.returncode, (0, 1), cp.stderr)
        with open(os.path.join(ev, "result.json"), encoding="utf-8") as f:
            text = f.read()
        self.assertIn('"sleep-0"', text)
        self.assertIn('"sleep 0"', text)
        hostile = json.dumps("sl" + HOSTILE)
        # The command line too: hyperfine's export names a variant by it.
        with open(os.path.join(ev, "result.json"), "w", encoding="utf-8") as f:
            f.write(text.replace('"sleep-0"', hostile).replace(
                '"sleep 0"', json.dumps("sleep 0 #" + HOSTILE)))
        reseal(ev)
        for args in (["compare", ev, ev], ["report", ev], ["export", ev, "--format", "junit"],
                     ["export", ev, "--format", "hyperfine"], ["export", ev, "--format", "json"]):
            cp = subprocess.run([ABEV, *args], capture_output=True)
            self.assertEqual(cp.returncode, 0, cp.stderr)
            self.assert_clean(f"abev {' '.join(args[:1] + args[2:])}", cp.stdout + cp.stderr)
            if "junit" not in args:          # (no gate: no variant named there)
                self.assertIn(b"PWNED", cp.stdout)
        cp = subprocess.run([ABEV, "export", ev, "--format", "csv"], capture_output=True)
        self.assertEqual(cp.returncode, 0, cp.stderr)
        self.assert_clean("export --format csv", cp.stdout.replace(b"\r\n", b"\n"))
        self.assertIn('"sl\ufffd]0;PWNED\ufffd\ufffd2J\ufffdevil\ufffdline"'.encode(), cp.stdout)


class CsvFormula(AbevTestCase):
    """A spreadsheet runs a CSV cell that starts with =, +, -, @, tab or CR as
    a formula: the CSV export writes such a text field with a leading "'",
    and leaves a negative number a number."""

    def test_formula_names_get_a_quote(self):
        metrics = [{"name": lead + "m", "source": "stdout", "pattern": "v=(-?[0-9]+)",
                    "unit": "@u" if lead == "=" else "u"} for lead in "=+-@"]
        plan = helper_plan([("-O2", []), ("plain", [])], runs=1, metrics=metrics)
        for v in plan["variants"]:
            v["command"] = ["sh", "-c", "echo v=-7"]
        self.run_plan(plan, 0)
        text = self.abev("export", self.path("ev"), "--format", "csv", check=0).stdout
        rows = list(csv.DictReader(io.StringIO(text)))
        self.assertEqual({r["variant"] for r in rows}, {"'-O2", "plain"})
        mine = [r for r in rows if r["metric"].endswith("m") and r["phase"] == "run"]
        self.assertEqual(sorted({r["metric"] for r in mine}), ["'+m", "'-m", "'=m", "'@m"])
        self.assertEqual({r["unit"] for r in mine}, {"'@u", "u"})
        self.assertEqual({r["value"] for r in mine}, {"-7"})
        # wall and its kin keep their names as they are.
        self.assertIn("wall", {r["metric"] for r in rows})


class NamesRefused(AbevTestCase):
    """Plan, variant and metric names that carry such a character are refused,
    naming the key, the file and the character."""

    def test_names(self):
        cases = [
            ("name", lambda p, s: p.update(name="ok" + s)),
            ("variants[1].name", lambda p, s: p["variants"][1].update(name="b" + s)),
            ("metrics[0].name", lambda p, s: p.update(
                metrics=[{"name": "m" + s, "source": "process", "field": "wall"}])),
        ]
        for key, edit in cases:
            for ch in ("\u202e", "\u2066", "\u009b", "\u0085", "\u2028", "\u2029"):
                with self.subTest(key=key, ch=f"U+{ord(ch):04X}"):
                    plan = helper_plan([("a", ["exit", "0"]), ("b", ["exit", "0"])])
                    edit(plan, ch)
                    p = self.write_plan(plan)
                    cp = self.abev("run", p, "--dry-run", check=2)
                    self.assertIn(f"plan.json:", cp.stderr)
                    self.assertIn(f"{key}: ", cp.stderr)
                    self.assertIn(f"U+{ord(ch):04X}", cp.stderr)
                    self.assert_no_raw(cp.stderr)

    def assert_no_raw(self, text):
        self.assertEqual(raw_chars(text), [], text)

    def test_bench_names(self):
        for ch in ("\u202e", "\u009b", "\u2028"):
            with self.subTest(ch=f"U+{ord(ch):04X}"):
                cp = self.abev("bench", "true", "-n", "a" + ch, "-r", "1",
                               "--out", self.path("ev"), check=2)
                self.assertIn(f"U+{ord(ch):04X}", cp.stderr)
                self.assertIn("-n", cp.stderr)
                self.assert_no_raw(cp.stderr)
                self.assertFalse(os.path.exists(self.path("ev")))
