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
    "variants": (None, ()),
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
                if argv is None:
                    self.skipTest(f"area '{area}' is fed by its unit test")
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


if __name__ == "__main__":
    unittest.main()
