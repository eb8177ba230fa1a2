"""`abev results` and `abev guard min-executed` on result files written by
real test runners (pytest, ctest, node:test), compared with each runner's
own summary of the same run. A runner that is not installed skips its tests
with the Debian package to install.

How each runner's words map onto abev's counts (checked here, per runner):

  pytest --junitxml   passed -> passed; xpassed (not strict) -> passed (a plain
                      <testcase/>); failed -> failed (a strict xpass is a
                      <failure>); error -> errors (<error>, e.g. a fixture that
                      fails in setup); skipped -> skipped; xfailed -> skipped
                      (pytest writes <skipped type="pytest.xfail">). A teardown
                      error on a passing test is ONE testcase with an <error>,
                      which pytest's summary counts twice ("1 passed, 1 error").
  ctest --output-junit  Passed -> passed; Failed -> failed; Not Run (Disabled)
                      -> skipped (status="disabled", no child); Skipped
                      (SKIP_RETURN_CODE) -> skipped (status="notrun" + <skipped>);
                      Not Run (missing executable) -> skipped (<skipped>), which
                      ctest's own summary counts among the FAILED.
  node --test junit   pass -> passed; fail -> failed; skipped -> skipped;
                      todo -> skipped (<skipped type="todo">); describe() blocks
                      are nested <testsuite>s and not tests (node counts them
                      as "suites").
executed is always total minus skipped here (no result lacks an outcome).
"""
import json
import os
import re
import shutil
import subprocess

from common import AbevTestCase

COUNTS = ("total", "executed", "passed", "failed", "errors", "skipped", "other")
SYS_PYTHON = "/usr/bin/python3"


def zero():
    return {k: 0 for k in COUNTS}


def finish(c):
    """Fills total and executed from the per-outcome counts."""
    c["total"] = c["passed"] + c["failed"] + c["errors"] + c["skipped"] + c["other"]
    c["executed"] = c["total"] - c["skipped"]
    return c


def counts_of(obj):
    return {k: obj[k] for k in COUNTS}


def run_tool(argv, cwd, timeout=60, env=None):
    e = dict(os.environ)
    e.update(env or {})
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          env=e, stdin=subprocess.DEVNULL)


class ResultsCase(AbevTestCase):
    """Helpers shared by the producer tests."""

    def results_json(self, *files, extra=(), check=0):
        cp = self.abev("results", *files, "--json", *extra, check=check)
        try:
            doc = json.loads(cp.stdout)
        except ValueError as e:
            self.fail(f"abev results --json printed no JSON ({e}):\n{cp.stdout}\n{cp.stderr}")
        self.assertEqual(doc.get("schema"), "abev.results/1")
        self.assertEqual(len(doc["files"]), len(files))
        for f, path in zip(doc["files"], files):
            self.assertTrue(f["path"] == path or os.path.realpath(f["path"]) == os.path.realpath(path),
                            (f["path"], path))
            for k in COUNTS:
                self.assertIsInstance(f[k], int, k)
            self.assertIsInstance(f["notes"], list)
        return doc

    def assert_counts(self, got, want, what):
        self.assertEqual(counts_of(got), want,
                         f"{what}: abev's counts (left) differ from the runner's own summary (right)")


# --- pytest -----------------------------------------------------------------

PYTEST_MODULE = '''
import pytest

@pytest.fixture
def broken():
    raise RuntimeError("fixture setup fails")

def test_pass_1():
    assert True

def test_pass_2():
    assert 1 + 1 == 2

def test_fail():
    assert 1 == 2

def test_fixture_error(broken):
    pass

@pytest.mark.skip(reason="skipped on purpose")
def test_skip_mark():
    pass

def test_skip_call():
    pytest.skip("skipped at run time")

@pytest.mark.xfail(reason="known bug")
def test_xfail():
    assert False

@pytest.mark.xfail(reason="fixed since")
def test_xpass():
    pass

@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_param(n):
    assert n != 3
'''

PYTEST_TEARDOWN_MODULE = '''
import pytest

@pytest.fixture
def leaky():
    yield
    raise RuntimeError("teardown fails")

def test_ok():
    pass

def test_teardown_error(leaky):
    pass

@pytest.mark.xfail(strict=True, reason="strict")
def test_strict_xpass():
    pass
'''


def pytest_available():
    if not os.access(SYS_PYTHON, os.X_OK):
        return False
    cp = subprocess.run([SYS_PYTHON, "-m", "pytest", "--version"], capture_output=True,
                        stdin=subprocess.DEVNULL)
    return cp.returncode == 0


def pytest_summary(text):
    """pytest's closing line ("2 failed, 5 passed, 2 skipped, 1 xfailed, 1 xpassed,
    1 error in 0.03s") as {word: n}; plural forms folded."""
    for line in reversed(text.strip().splitlines()):
        line = line.strip("= ")
        if re.search(r"\bin [\d.]+s\b", line):
            found = re.findall(r"(\d+) (passed|failed|skipped|xfailed|xpassed|errors?|deselected|"
                               r"warnings?)", line)
            if found:
                out = {}
                for n, word in found:
                    out[word.rstrip("s") if word in ("errors", "warnings") else word] = int(n)
                return out
    raise AssertionError(f"no pytest summary line in:\n{text}")


class Pytest(ResultsCase):
    def setUp(self):
        super().setUp()
        if not pytest_available():
            self.skipTest("needs pytest for /usr/bin/python3: apt-get install python3-pytest")

    def run_pytest(self, source, name):
        mod = self.path(f"test_{name}.py")
        with open(mod, "w") as f:
            f.write(source)
        out = self.path(f"{name}.xml")
        cp = run_tool([SYS_PYTHON, "-m", "pytest", "-p", "no:cacheprovider", "-q",
                       f"--junitxml={out}", mod], cwd=self.tmp,
                      env={"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTHONDONTWRITEBYTECODE": "1"})
        self.assertEqual(cp.returncode, 1, f"pytest should report failures:\n{cp.stdout}\n{cp.stderr}")
        self.assertTrue(os.path.exists(out), cp.stdout)
        return out, pytest_summary(cp.stdout)

    def test_counts_match_pytest_summary(self):
        out, s = self.run_pytest(PYTEST_MODULE, "mixed")
        # What this module must produce: a sanity check of the runner itself.
        self.assertEqual(s, {"passed": 5, "failed": 2, "skipped": 2, "xfailed": 1,
                             "xpassed": 1, "error": 1}, s)
        want = zero()
        want["passed"] = s.get("passed", 0) + s.get("xpassed", 0)
        want["failed"] = s.get("failed", 0)
        want["errors"] = s.get("error", 0)
        want["skipped"] = s.get("skipped", 0) + s.get("xfailed", 0)
        finish(want)
        doc = self.results_json(out)
        f = doc["files"][0]
        self.assertEqual(f["format"], "junit")
        self.assert_counts(f, want, "pytest")
        self.assert_counts(doc["total"], want, "pytest (total row)")
        self.assertEqual(doc["total"]["format"], "junit")
        self.assertEqual(doc["total"]["files"], 1)
        self.assertIsNone(doc["guard"])
        self.assertIsNone(f["outcome"])          # TRX only
        self.assertIsInstance(f["start"], str)   # the testsuite's timestamp
        # pytest's suite counters (tests/failures/errors/skipped) agree with
        # its testcases: nothing to note.
        self.assertEqual(f["notes"], [], f["notes"])

    def test_teardown_error_counts_once(self):
        out, s = self.run_pytest(PYTEST_TEARDOWN_MODULE, "teardown")
        self.assertEqual(s, {"passed": 2, "failed": 1, "error": 1}, s)
        # pytest counts test_teardown_error twice (its call passed, its teardown
        # errored) but writes one <testcase> holding an <error>; the strict
        # xpass is a <failure>. abev counts testcases.
        want = finish(dict(zero(), passed=s["passed"] - s["error"], failed=s["failed"],
                           errors=s["error"]))
        doc = self.results_json(out)
        self.assert_counts(doc["files"][0], want, "pytest with a teardown error")
        # pytest's testsuite says tests="4" for three testcases: a disagreement
        # with the file's own counters, which abev must note.
        self.assertTrue(doc["files"][0]["notes"], "no note for tests=4 against 3 testcases")


# --- ctest ------------------------------------------------------------------

CMAKE_PROJECT = '''
cmake_minimum_required(VERSION 3.13)
project(abev_results NONE)
enable_testing()
add_test(NAME pass_a COMMAND true)
add_test(NAME pass_b COMMAND true)
add_test(NAME fail_a COMMAND false)
add_test(NAME will_fail COMMAND false)
set_tests_properties(will_fail PROPERTIES WILL_FAIL TRUE)
add_test(NAME disabled_a COMMAND true)
set_tests_properties(disabled_a PROPERTIES DISABLED TRUE)
add_test(NAME skip_rc COMMAND sh -c "exit 77")
set_tests_properties(skip_rc PROPERTIES SKIP_RETURN_CODE 77)
add_test(NAME missing_exe COMMAND /nonexistent/abev-no-such-program)
'''

CTEST_LINE = re.compile(r"^\s*\d+/\d+ Test\s+#\d+: (\S+) \.*\s*(?:\*\*\*)?"
                        r"(Passed|Failed|Not Run \(Disabled\)|Not Run|Skipped)(?=\s|$)", re.M)


def ctest_listing(text, heading):
    """Names under ctest's "The following tests <heading>:" block, with their reason."""
    m = re.search(rf"^The following tests {heading}:\n((?:\s+\d+ - .*\n?)*)", text, re.M)
    if not m:
        return {}
    return dict(re.findall(r"\d+ - (\S+) \(([^)]*)\)", m.group(1)))


class Ctest(ResultsCase):
    def setUp(self):
        super().setUp()
        if not (shutil.which("ctest") and shutil.which("cmake")):
            self.skipTest("needs ctest: apt-get install cmake")

    def test_counts_match_ctest_summary(self):
        src = self.path("proj")
        os.mkdir(src)
        with open(os.path.join(src, "CMakeLists.txt"), "w") as f:
            f.write(CMAKE_PROJECT)
        build = self.path("build")
        cp = run_tool(["cmake", "-S", src, "-B", build], cwd=self.tmp)
        if cp.returncode != 0:
            self.skipTest(f"cmake cannot configure an empty project here:\n{cp.stderr[-2000:]}")
        out = self.path("ctest.xml")
        cp = run_tool(["ctest", "--output-junit", out], cwd=build)
        text = cp.stdout
        self.assertNotEqual(cp.returncode, 0, text)
        self.assertTrue(os.path.exists(out), text + cp.stderr)

        status = dict(CTEST_LINE.findall(text))
        self.assertEqual(len(status), 7, text)
        m = re.search(r"(\d+)% tests passed, (\d+) tests? failed out of (\d+)", text)
        self.assertIsNotNone(m, text)
        pct, failed, total = map(int, m.groups())
        did_not_run = ctest_listing(text, "did not run")
        failed_list = ctest_listing(text, "FAILED")
        # ctest's own lines agree with each other: "out of T" leaves disabled
        # tests out; its FAILED list holds the missing executable.
        by = lambda *kinds: sorted(n for n, s in status.items() if s in kinds)
        self.assertEqual(total, len(status) - len(by("Not Run (Disabled)")), text)
        self.assertEqual(failed, len(failed_list), text)
        self.assertEqual(sorted(failed_list), by("Failed", "Not Run"), text)
        self.assertEqual(failed_list.get("missing_exe"), "Not Run", text)
        self.assertEqual(sorted(did_not_run), by("Not Run (Disabled)", "Skipped"), text)
        self.assertEqual(did_not_run.get("disabled_a"), "Disabled", text)
        self.assertEqual(pct, round(100 * (total - failed) / total), text)

        want = zero()
        want["passed"] = len(by("Passed"))
        want["failed"] = len(by("Failed"))
        # Disabled, skipped by return code, and the missing executable (which
        # ctest writes as <skipped> though its summary calls it failed).
        want["skipped"] = len(by("Not Run (Disabled)", "Skipped", "Not Run"))
        finish(want)
        self.assertEqual(want, {"total": 7, "executed": 4, "passed": 3, "failed": 1, "errors": 0,
                                "skipped": 3, "other": 0})
        doc = self.results_json(out)
        self.assertEqual(doc["files"][0]["format"], "junit")
        self.assert_counts(doc["files"][0], want, "ctest")


# --- node:test ---------------------------------------------------------------

NODE_TEST = '''
import { describe, it, test } from 'node:test';
import assert from 'node:assert';

test('top pass', () => {});
test('top fail', () => { assert.strictEqual(1, 2); });
test('top skip', { skip: 'not today' }, () => {});
test('skip at run time', (t) => { t.skip('later'); });
test('top todo', { todo: 'write it' }, () => {});
describe('group', () => {
  it('inner pass', () => {});
  it('inner fail', () => { assert.ok(false); });
  it.skip('inner skip', () => {});
  it.todo('inner todo');
  describe('deeper', () => {
    it('deep pass 1', () => {});
    it('deep pass 2', () => {});
  });
});
'''


def node_junit_problem(tmp):
    """None when `node --test --test-reporter=junit` works, else why not."""
    node = shutil.which("node")
    if not node:
        return "needs node with the junit test reporter: apt-get install nodejs (>= 20.13)"
    probe = os.path.join(tmp, "probe.test.mjs")
    with open(probe, "w") as f:
        f.write("import test from 'node:test';\ntest('probe', () => {});\n")
    try:
        cp = run_tool([node, "--test", "--test-reporter=junit", probe], cwd=tmp, timeout=60,
                      env={"NODE_OPTIONS": ""})
    except subprocess.TimeoutExpired:
        return "node --test --test-reporter=junit hung"
    finally:
        os.unlink(probe)
    if cp.returncode != 0 or "<testsuites" not in cp.stdout:
        ver = run_tool([node, "--version"], cwd=tmp).stdout.strip()
        return (f"node {ver} does not support `node --test --test-reporter=junit` "
                f"(install nodejs >= 20.13): {cp.stderr.strip()[:200]}")
    return None


class NodeTest(ResultsCase):
    def setUp(self):
        super().setUp()
        why = node_junit_problem(self.tmp)
        if why:
            self.skipTest(why)

    def test_counts_match_node_tap_summary(self):
        src = self.path("gen.test.mjs")
        with open(src, "w") as f:
            f.write(NODE_TEST)
        out = self.path("node.xml")
        env = {"NODE_OPTIONS": "", "NO_COLOR": "1"}
        cp = run_tool(["node", "--test", "--test-reporter=junit",
                       f"--test-reporter-destination={out}", src], cwd=self.tmp, env=env)
        self.assertEqual(cp.returncode, 1, cp.stdout + cp.stderr)
        self.assertTrue(os.path.exists(out))
        tap = run_tool(["node", "--test", "--test-reporter=tap", src], cwd=self.tmp, env=env).stdout
        s = {k: int(v) for k, v in re.findall(r"^# (tests|suites|pass|fail|cancelled|skipped|todo) (\d+)$",
                                              tap, re.M)}
        self.assertEqual(s, {"tests": 11, "suites": 2, "pass": 4, "fail": 2, "cancelled": 0,
                             "skipped": 3, "todo": 2}, tap)
        self.assertEqual(s["tests"], s["pass"] + s["fail"] + s["cancelled"] + s["skipped"] + s["todo"])
        want = finish(dict(zero(), passed=s["pass"], failed=s["fail"],
                           skipped=s["skipped"] + s["todo"]))
        doc = self.results_json(out)
        self.assertEqual(doc["files"][0]["format"], "junit")
        self.assert_counts(doc["files"][0], want, "node --test")


# --- table, --min-executed, guard --------------------------------------------

class TableAndGuard(ResultsCase):
    """Uses pytest's file (9 of 12 tests executed) and a small generated TRX."""

    def setUp(self):
        super().setUp()
        if not pytest_available():
            self.skipTest("needs pytest for /usr/bin/python3: apt-get install python3-pytest")
        mod = self.path("test_mixed.py")
        with open(mod, "w") as f:
            f.write(PYTEST_MODULE)
        self.xml = self.path("py.xml")
        run_tool([SYS_PYTHON, "-m", "pytest", "-p", "no:cacheprovider", "-q",
                  f"--junitxml={self.xml}", mod], cwd=self.tmp,
                 env={"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTHONDONTWRITEBYTECODE": "1"})
        self.assertTrue(os.path.exists(self.xml))
        # A second file of another format: a small TRX from the generator.
        gen = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                           "helpers", "gen_results.py")
        self.trx = self.path("gen.trx")
        cp = subprocess.run([SYS_PYTHON, gen, "trx", self.trx, "--results", "300",
                             "--data-driven", "50"], capture_output=True, text=True, check=True)
        self.trx_counts = {k: v for k, v in json.loads(cp.stdout).items() if k in COUNTS}

    def test_table(self):
        doc = self.results_json(self.xml, self.trx)
        cp = self.abev("results", self.xml, self.trx, check=0)
        lines = cp.stdout.splitlines()
        header = next((l for l in lines if re.search(r"\bformat\b", l)), None)
        self.assertIsNotNone(header, cp.stdout)
        cols = ["file", "format"] + list(COUNTS)
        pos = [header.find(c) for c in cols]
        self.assertNotIn(-1, pos, f"header lacks a column of {cols}:\n{header}")
        self.assertEqual(pos, sorted(pos), f"columns out of order:\n{header}")

        def row_counts(line):
            nums = re.findall(r"(?<![\w.])\d+(?![\w.])", line)
            self.assertGreaterEqual(len(nums), 7, line)
            return dict(zip(COUNTS, map(int, nums[-7:])))

        for path, fmt, f in ((self.xml, "junit", doc["files"][0]), (self.trx, "trx", doc["files"][1])):
            rows = [l for l in lines if l.split()[:1] and l.split()[0].endswith(os.path.basename(path))]
            self.assertEqual(len(rows), 1, f"one row for {path}:\n{cp.stdout}")
            self.assertIn(fmt, rows[0].split())
            self.assertEqual(row_counts(rows[0]), counts_of(f), rows[0])
        self.assertEqual(counts_of(doc["files"][1]), self.trx_counts, "generated TRX")
        total = [l for l in lines if l.split()[:1] == ["total"]]
        self.assertEqual(len(total), 1, cp.stdout)
        want = {k: doc["files"][0][k] + doc["files"][1][k] for k in COUNTS}
        self.assertEqual(row_counts(total[0]), want, total[0])
        self.assertEqual(counts_of(doc["total"]), want)
        self.assertEqual(doc["total"]["format"], "mixed")
        self.assertEqual(doc["total"]["files"], 2)
        self.assertEqual(cp.stderr, "")

    def test_min_executed(self):
        n = self.results_json(self.xml)["files"][0]["executed"]
        self.assertEqual(n, 9)
        ok = self.results_json(self.xml, extra=("--min-executed", str(n)), check=0)
        self.assertEqual(ok["guard"]["guard"], "min_executed")
        self.assertEqual(ok["guard"]["verdict"], "pass")
        bad = self.results_json(self.xml, extra=("--min-executed", str(n + 1)), check=1)
        self.assertEqual(bad["guard"]["verdict"], "fail")
        self.assertIn(str(n), bad["guard"]["reason"])
        self.assertIn(str(n + 1), bad["guard"]["reason"])
        self.assertEqual(counts_of(bad["files"][0]), counts_of(ok["files"][0]))
        # The table form fails the same way and still prints the table.
        cp = self.abev("results", self.xml, "--min-executed", str(n + 1), check=1)
        self.assertIn(os.path.basename(self.xml), cp.stdout)
        # Over two files the executed tests add up.
        both = self.trx_counts["executed"] + n
        self.abev("results", self.xml, self.trx, "--min-executed", str(both), check=0)
        self.abev("results", self.xml, self.trx, "--min-executed", str(both + 1), check=1)

    def test_guard_command_agrees(self):
        n = self.results_json(self.xml)["files"][0]["executed"]
        for m, code, verdict in ((n, 0, "pass"), (n + 1, 1, "fail"), (1, 0, "pass")):
            with self.subTest(min=m):
                g = self.abev("guard", "min-executed", "--min", str(m), self.xml, check=code)
                self.assertRegex(g.stdout, rf"^min_executed: {verdict}: .*\b{n}\b")
                self.assertEqual(g.stdout.count("\n"), 1, g.stdout)
                r = self.abev("results", self.xml, "--min-executed", str(m), "--json", check=code)
                self.assertEqual(json.loads(r.stdout)["guard"]["verdict"], verdict)
        both = self.trx_counts["executed"] + n
        self.abev("guard", "min-executed", "--min", str(both), self.xml, self.trx, check=0)
        g = self.abev("guard", "min-executed", "--min", str(both + 1), self.xml, self.trx, check=1)
        self.assertIn(str(both), g.stdout)

    def test_refused_file_among_good_ones(self):
        bad = self.path("bad.xml")
        with open(bad, "w") as f:
            f.write("<html/>\n")
        cp = self.abev("results", self.xml, bad, check=2)
        self.assertIn(os.path.basename(self.xml), cp.stdout, "the good file is still listed")
        self.assertRegex(cp.stderr, rf"^abev: error: {re.escape(bad)}:\d+: \S")
        g = self.abev("guard", "min-executed", "--min", "1", self.xml, bad, check=2)
        self.assertIn(bad, g.stderr)
