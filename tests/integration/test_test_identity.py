"""A test's identity is its class and its name. NUnit and MSTest write the
bare method as the TRX testName (the class only in TestDefinitions, after
the results); two classes with a Dictionary_RoundTrip are two tests, and a
candidate that drops one did not run the same tests. JUnit likewise by
classname, and a test that ran twice is two (the sets are multisets)."""
import os
import unittest

from common import SRC, AbevTestCase, helper_plan

TRX_HEAD = ('<?xml version="1.0" encoding="UTF-8"?>\n'
            '<TestRun xmlns="http://microsoft.com/schemas/VisualStudio/TeamTest/2010">\n'
            '<Results>\n')


def trx(tests):
    """An NUnit-style TRX: tests is a list of (id, class, method); the
    definitions come after the results, as the vstest logger writes them."""
    res = "".join(f'<UnitTestResult testId="{i}" testName="{m}" outcome="Passed" '
                  f'duration="00:00:00.001"/>\n' for i, _, m in tests)
    defs = "".join(f'<UnitTest id="{i}" name="{m}"><TestMethod className="Ns.{c}, Ns.Tests, '
                   f'Version=1.0.0.0, Culture=neutral, PublicKeyToken=null" name="{m}"/>'
                   f'</UnitTest>\n' for i, c, m in dict((t[0], t) for t in tests).values())
    return TRX_HEAD + res + "</Results>\n<TestDefinitions>\n" + defs + \
        "</TestDefinitions>\n</TestRun>\n"


def junit(tests):
    cases = "".join(f'<testcase classname="Ns.{c}" name="{m}" time="0.001"/>\n'
                    for c, m in tests)
    return f'<testsuites><testsuite name="s" tests="{len(tests)}">\n{cases}</testsuite></testsuites>\n'


BASE = [("id-1", "YamlTests", "Dictionary_RoundTrip"),
        ("id-2", "OtherTests", "Dictionary_RoundTrip"),
        ("id-3", "YamlTests", "List_RoundTrip")]


@unittest.skipUnless(SRC, "the source tree is not known")
class TestIdentity(AbevTestCase):
    def compare(self, base_text, cand_text, ext):
        """Runs a baseline and a candidate that copy base_text and cand_text
        into their run directories; returns (cp, result.json)."""
        files = []
        for n, text in (("base", base_text), ("cand", cand_text)):
            p = self.path(f"{n}.{ext}")
            with open(p, "w") as f:
                f.write(text)
            files.append(p)
        plan = helper_plan([("base", []), ("cand", [])],
                           results={"files": "{run_dir}/*." + ext})
        for v, src in zip(plan["variants"], files):
            v["command"] = ["sh", "-c", f"cp '{src}' \"$ABEV_RUN_DIR/r.{ext}\""]
        return self.run_plan(plan, None)

    def set_guard(self, res, variant):
        inv = [i for i in res["invocations"] if i["variant"] == variant][0]
        return [g for g in inv["guards"] if g["guard"] == "test_set"][0]

    def assert_missing(self, cp, res, name, ran, ref_ran):
        self.assertEqual(self.set_guard(res, "base")["verdict"], "pass")
        g = self.set_guard(res, "cand")
        self.assertEqual(g["verdict"], "fail", g["reason"])
        self.assertIn(f"ran {ran} test(s)", g["reason"])
        self.assertIn(f"ran {ref_ran}; missing 1: '{name}'", g["reason"])
        self.assertNotEqual(cp.returncode, 0)
        self.assertIn("failed the test_set guard", cp.stdout)
        with open(self.path("ev", "report.md")) as f:
            # Markdown escapes the underscores.
            self.assertIn(f"missing 1: '{name}'".replace("_", "\\_"), f.read())

    def test_nunit_trx_candidate_that_drops_one_class_fails(self):
        cp, res = self.compare(trx(BASE), trx([BASE[0], BASE[2]]), "trx")
        self.assert_missing(cp, res, "Ns.OtherTests.Dictionary_RoundTrip", 2, 3)
        # abev results --list names the tests by class, the ", Assembly" dropped.
        out = self.abev("results", "--list", self.path("base.trx")).stdout
        self.assertEqual([line.split("\t")[0] for line in out.splitlines()],
                         ["Ns.YamlTests.Dictionary_RoundTrip",
                          "Ns.OtherTests.Dictionary_RoundTrip",
                          "Ns.YamlTests.List_RoundTrip"])

    def test_junit_candidate_that_drops_one_class_fails(self):
        base = [(c, m) for _, c, m in BASE]
        cp, res = self.compare(junit(base), junit([base[0], base[2]]), "xml")
        self.assert_missing(cp, res, "Ns.OtherTests.Dictionary_RoundTrip", 2, 3)

    def test_a_test_run_twice_is_two(self):
        # The baseline runs List_RoundTrip twice (a duplicate registration), the candidate once.
        cp, res = self.compare(trx(BASE + [("id-3", "YamlTests", "List_RoundTrip")]),
                               trx(BASE), "trx")
        self.assert_missing(cp, res, "Ns.YamlTests.List_RoundTrip", 3, 4)

    def test_the_same_tests_pass(self):
        cp, res = self.compare(trx(BASE), trx(BASE), "trx")
        g = self.set_guard(res, "cand")
        self.assertEqual(g["verdict"], "pass", g["reason"])
        self.assertIn("ran the same 3 test(s)", g["reason"])


if __name__ == "__main__":
    unittest.main()
