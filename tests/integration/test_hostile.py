"""The regression cases of tests/hostile/ (tests/hostile/README.md): each
input is fed to the reader of its area through the real binary, which must
return — no crash, hang or sanitizer report — with the expected outcome:
`accept`, or `reject: <text>` with <text> in what it says."""
import os
import unittest

from common import SRC, AbevTestCase

HOSTILE = os.path.join(SRC, "tests", "hostile")
# How each area's reader is reached from the command line, and its exit code on refusal.
AREAS = {
    "plan": (lambda f: ("run", f, "--dry-run"), (2,)),
    "results": (lambda f: ("results", f), (2,)),
    "bundle": (lambda f: ("verify", f), (2, 4)),
}


def cases():
    for area in sorted(os.listdir(HOSTILE)) if os.path.isdir(HOSTILE) else []:
        d = os.path.join(HOSTILE, area)
        if not os.path.isdir(d):
            continue
        for name in sorted(os.listdir(d)):
            if name.endswith(".expect") or name == "README.md":
                continue
            with open(os.path.join(d, name + ".expect"), encoding="utf-8") as f:
                yield area, os.path.join(d, name), f.read().strip()


class Hostile(AbevTestCase):
    def test_every_case(self):
        found = list(cases())
        self.assertTrue(found, "tests/hostile holds no case")
        for area, path, expect in found:
            with self.subTest(case=os.path.relpath(path, HOSTILE)):
                self.assertIn(area, AREAS, f"no reader known for area '{area}'")
                argv, refused = AREAS[area]
                cp = self.abev(*argv(path), timeout=120)
                text = cp.stdout + cp.stderr
                self.assertNotIn("Sanitizer", text)
                self.assertNotIn("runtime error", text)
                if expect == "accept":
                    self.assertNotIn(cp.returncode, refused, text)
                else:
                    self.assertTrue(expect.startswith("reject: "), expect)
                    self.assertIn(cp.returncode, refused, text)
                    self.assertIn(expect[len("reject: "):], text)

    def test_names_cannot_fake_a_verdict(self):
        # A file named to print a fake verdict line and a terminal escape: every name
        # abev prints goes through one escaping (util's strbuf_add_escaped()).
        self.abev("bench", "true", "-r", "2", "--out", self.path("ev"), "--quiet",
                  "--max-cpu-wait-pct", "100")
        with open(self.path("ev", "zz\nverdict:     verified\n\x1b[2K"), "w") as f:
            f.write("x")
        cp = self.abev("verify", self.path("ev"))
        self.assertEqual(cp.returncode, 4, cp.stdout + cp.stderr)
        lines = cp.stdout.splitlines()
        self.assertNotIn("verdict:     verified", lines)
        self.assertNotIn("\x1b", cp.stdout)
        self.assertIn("problem:     zz\\nverdict:     verified\\n\\x1b[2K: unsafe name", cp.stdout)
        self.validate_evidence_on_teardown = False


if __name__ == "__main__":
    unittest.main()
