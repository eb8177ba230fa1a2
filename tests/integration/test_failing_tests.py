"""A failing test rejects. A recorded run whose result files hold a failed,
errored, aborted or timed-out test fails its tests_passed guard, whatever
the runner's exit code, and the decision is rejected naming the test, its
outcome and the first line of its message: in the terminal's decision
line, the report, result.json and the JUnit export. The exit-code guard is
another one: a command that exits 0 over a failing test (or `-i`) does not
pass it. results.known_failures allows named tests to fail."""
import os
import shutil
import unittest
import xml.etree.ElementTree as ET

from common import SRC, AbevTestCase, helper_plan

TRX_HEAD = ('<?xml version="1.0" encoding="UTF-8"?>\n'
            '<TestRun xmlns="http://microsoft.com/schemas/VisualStudio/TeamTest/2010">\n'
            '<Results>\n')


def trx(failing=None, outcome="Failed"):
    """An MSTest-style TRX of three tests (bare method names, classes in the
    definitions); failing: the method that fails, with a two-line message."""
    tests = [("id-1", "CacheTests", "Lookup"), ("id-2", "CacheTests", "Evict"),
             ("id-3", "ParserTests", "Lookup")]
    res = ""
    for i, c, m in tests:
        if f"{c}.{m}" == failing:
            res += (f'<UnitTestResult testId="{i}" testName="{m}" outcome="{outcome}" '
                    f'duration="00:00:00.002"><Output><ErrorInfo><Message>Assert.AreEqual '
                    f'failed. Expected:&lt;3&gt;. Actual:&lt;2&gt;.&#xD;\nsecond line</Message>'
                    f'<StackTrace>at Ns.{c}.{m}()</StackTrace></ErrorInfo></Output>'
                    f'</UnitTestResult>\n')
        else:
            res += (f'<UnitTestResult testId="{i}" testName="{m}" outcome="Passed" '
                    f'duration="00:00:00.001"/>\n')
    defs = "".join(f'<UnitTest id="{i}" name="{m}"><TestMethod className="Ns.{c}, Ns.Tests" '
                   f'name="{m}"/></UnitTest>\n' for i, c, m in tests)
    return TRX_HEAD + res + "</Results>\n<TestDefinitions>\n" + defs + \
        "</TestDefinitions>\n</TestRun>\n"


MESSAGE = "Assert.AreEqual failed. Expected:<3>. Actual:<2>."


@unittest.skipUnless(SRC, "the source tree is not known")
class FailingTests(AbevTestCase):
    def compare(self, cand_text, exit_code=0, runs=4, **results):
        """Baseline and candidate copy their TRX into the run directory and
        exit with exit_code; returns (cp, result.json). 4 rounds: the fewest
        a plan with a gate may give (fewer can never decide it)."""
        files = []
        for n, text in (("base", trx()), ("cand", cand_text)):
            p = self.path(f"{n}.trx")
            with open(p, "w") as f:
                f.write(text)
            files.append(p)
        plan = helper_plan([("base", []), ("cand", [])], runs=runs,
                           results={"files": "{run_dir}/*.trx", **results},
                           metrics=[{"name": "t", "source": "process", "field": "wall",
                                     "max_regression_pct": 1000}],
                           allowed_exit_codes=[0, 1])
        for v, src in zip(plan["variants"], files):
            v["command"] = ["sh", "-c", f"cp '{src}' \"$ABEV_RUN_DIR/r.trx\"; exit {exit_code}"]
        return self.run_plan(plan, None)

    def guard(self, inv):
        return [g for g in inv["guards"] if g["guard"] == "tests_passed"][0]

    def test_a_failing_test_rejects_whatever_the_exit_code(self):
        for code in (0, 1):   # 1 is allowed, as `-i` or allowed_exit_codes would
            with self.subTest(exit_code=code):
                cp, res = self.compare(trx("ParserTests.Lookup"), exit_code=code)
                cmp = res["comparison"]
                self.assertEqual(cmp["decision"], "rejected", cmp)
                named = f"Ns.ParserTests.Lookup (Failed: {MESSAGE})"
                self.assertTrue(cmp["blocking"])
                first = cmp["blocking"][0]
                self.assertEqual((first["code"], first["variant"], first["guard"]),
                                 ("test_guard_failed", "cand", "tests_passed"))
                self.assertIn(named, first["guard_reason"])
                for inv in res["invocations"]:
                    ex = [g for g in inv["guards"] if g["guard"] == "exit_code"][0]
                    self.assertEqual(ex["verdict"], "pass")   # the code was allowed
                    g = self.guard(inv)
                    if inv["variant"] == "base":
                        self.assertEqual(g["verdict"], "pass", g)
                        self.assertEqual(inv["test_failures"], [])
                        continue
                    self.assertEqual(g["verdict"], "fail", g)
                    self.assertEqual(g["reason"], f"1 test(s) failed: {named}")
                    self.assertEqual(inv["status"], "failed")
                    self.assertEqual(inv["failed_tests"], ["Ns.ParserTests.Lookup"])
                    self.assertEqual(inv["test_failures"], [
                        {"name": "Ns.ParserTests.Lookup", "outcome": "Failed",
                         "message": MESSAGE, "known": False}])
                # The decision line, the report and the JUnit export name it.
                self.assertIn("rejected", cp.stdout)
                self.assertIn("Ns.ParserTests.Lookup", cp.stdout)
                with open(self.path("ev", "report.md"), encoding="utf-8") as f:
                    report = f.read()
                # The report's list of failed tests gives the outcome and the message.
                self.assertIn(": Ns.ParserTests.Lookup (Failed: Assert.AreEqual failed. "
                              "Expected:\\<3\\>. Actual:\\<2\\>.)\n", report)
                out = self.path(f"junit-{code}.xml")
                self.abev("export", self.path("ev"), "--format", "junit", "--out", out,
                          check=None)
                failures = [f.get("message") for f in ET.parse(out).iter("failure")]
                self.assertTrue(any(m and named in m for m in failures), failures)
                self.assertNotEqual(cp.returncode, 0)
                self.reset_out()

    def test_timeouts_and_aborts_fail_too(self):
        for outcome in ("Timeout", "Aborted", "Error"):
            with self.subTest(outcome=outcome):
                cp, res = self.compare(trx("CacheTests.Evict", outcome=outcome))
                self.assertEqual(res["comparison"]["decision"], "rejected")
                cand = [i for i in res["invocations"] if i["variant"] == "cand"][0]
                self.assertIn(f"Ns.CacheTests.Evict ({outcome}: ", self.guard(cand)["reason"])
                self.reset_out()

    def test_known_failures_are_allowed_and_said(self):
        cp, res = self.compare(trx("ParserTests.Lookup"),
                               known_failures=["Ns.ParserTests.*"])
        cand = [i for i in res["invocations"] if i["variant"] == "cand"][0]
        g = self.guard(cand)
        self.assertEqual(g["verdict"], "pass", g)
        self.assertIn("1 known failure(s) allowed: Ns.ParserTests.Lookup (Failed: ", g["reason"])
        self.assertEqual(cand["test_failures"][0]["known"], True)
        self.assertEqual(cand["status"], "ok")
        with open(self.path("ev", "report.md"), encoding="utf-8") as f:
            self.assertIn("Expected:\\<3\\>. Actual:\\<2\\>.; a known failure)", f.read())
        self.assertNotIn("tests_passed", [b["guard"] for b in res["comparison"]["blocking"]])
        # A pattern of the method alone does not match the class-qualified name.
        self.reset_out()
        cp, res = self.compare(trx("ParserTests.Lookup"), known_failures=["Lookup"])
        self.assertEqual(res["comparison"]["decision"], "rejected")

    def reset_out(self):
        shutil.rmtree(self.path("ev"))
        for n in ("base.trx", "cand.trx", "plan.json"):
            if os.path.exists(self.path(n)):
                os.unlink(self.path(n))


if __name__ == "__main__":
    unittest.main()
