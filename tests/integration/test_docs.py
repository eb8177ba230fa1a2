"""The generated references of docs/: docs/plan-keys.md, options.md,
exit-codes.md and reason-codes.md are what mk/docs.py writes from `abev help TOPIC --markdown`,
so that they say what the binary's own tables say (a stale one names
`make docs`); each starts with a line naming the command it comes from; the
options and exit codes they list are the binary's; and every link between
README.md and docs/ leads to a file that is there, and to a heading of it."""
import os
import re
import subprocess
import sys
import unittest

from common import ABEV, SRC, AbevTestCase

GENERATED = {"plan-keys.md": "plan", "options.md": "options", "exit-codes.md": "exit-codes",
             "reason-codes.md": "reasons"}


def read(name):
    with open(os.path.join(SRC, "docs", name), encoding="utf-8") as f:
        return f.read()


class TestGenerated(unittest.TestCase):
    def test_committed_files_are_what_abev_prints(self):
        cp = subprocess.run([sys.executable, os.path.join(SRC, "mk", "docs.py"), "--check",
                             ABEV, os.path.join(SRC, "docs")], capture_output=True, text=True)
        self.assertEqual(cp.returncode, 0, cp.stdout + cp.stderr)

    def test_each_says_how_it_is_made(self):
        for name, topic in GENERATED.items():
            first = read(name).split("\n", 1)[0]
            self.assertIn(f"`abev help {topic} --markdown`", first, name)
            self.assertIn("make docs", first, name)


def anchor(heading):
    """The anchor a Markdown heading gets: lower case, punctuation dropped."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


class TestLinks(unittest.TestCase):
    def test_every_link_leads_somewhere(self):
        docs = sorted(n for n in os.listdir(os.path.join(SRC, "docs")) if n.endswith(".md"))
        for name in ["README.md"] + [os.path.join("docs", n) for n in docs]:
            with open(os.path.join(SRC, name), encoding="utf-8") as f:
                text = f.read()
            for target in re.findall(r"\]\(([^)\s]+)\)", text):
                if re.match(r"[a-z]+:", target):
                    continue
                path, _, frag = target.partition("#")
                full = os.path.normpath(os.path.join(SRC, os.path.dirname(name), path))
                with self.subTest(file=name, link=target):
                    self.assertTrue(os.path.exists(full), f"{name}: {target} does not exist")
                    if frag:
                        with open(full, encoding="utf-8") as f:
                            heads = {anchor(h) for h in re.findall(r"(?m)^#+ (.*)$", f.read())}
                        self.assertIn(frag, heads, f"{name}: no heading for #{frag}")


class TestCheck(AbevTestCase):
    def test_a_stale_file_names_make_docs(self):
        for name in GENERATED:
            with open(self.path(name), "w", encoding="utf-8") as f:
                f.write(read(name) + "| stale | row |\n")
        cp = subprocess.run([sys.executable, os.path.join(SRC, "mk", "docs.py"), "--check",
                             ABEV, self.tmp], capture_output=True, text=True)
        self.assertEqual(cp.returncode, 1)
        self.assertIn("run 'make docs'", cp.stdout)
        self.assertIn("| stale | row |", cp.stdout)

    def test_tables_list_what_abev_has(self):
        options = read("options.md")
        for c in ("run", "bench", "verify", "help exit-codes"):
            self.assertIn(f"\n## abev {c}\n", options)
        self.assertIn("| `-o, --out DIR` |", options)
        codes = self.abev("help", "exit-codes", check=0).stdout
        table = read("exit-codes.md")
        for code in ("0", "1", "2", "3", "4", "5", "6", "7", "8", "128+N"):
            self.assertIn(f"\n| {code} | ", table)
            self.assertRegex(codes, rf"(?m)^  {code.replace('+', '[+]')} +\S")
