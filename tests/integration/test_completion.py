"""Shell completion: completions/abev.bash and completions/_abev are what
mk/completions.py writes from abev's option tables (`abev __options`), so
they offer exactly the options each command parses; abev.bash completes
commands, options, option values and operands when bash calls it; _abev
parses with zsh -n (where zsh is installed); make install puts both where
bash-completion and zsh look, under DESTDIR."""
import json
import os
import re
import shutil
import subprocess
import sys
import unittest

from common import ABEV, SRC, AbevTestCase

BASH = shutil.which("bash")
BASH_SCRIPT = os.path.join(SRC, "completions", "abev.bash")
ZSH_SCRIPT = os.path.join(SRC, "completions", "_abev")


def tables():
    """Every command's table: {name: [option, ...]} ("" is abev's own)."""
    out = subprocess.run([ABEV, "__options"], capture_output=True, text=True, check=True).stdout
    return {c["name"]: c["options"] for c in json.loads(out)["commands"]}


def spellings(opts):
    return {s for o in opts for s in ([f"-{o['short']}"] if o["short"] else [])
            + [f"--{o['long']}"]}


class TestGenerated(unittest.TestCase):
    def test_committed_files_are_what_the_tables_give(self):
        cp = subprocess.run([sys.executable, os.path.join(SRC, "mk", "completions.py"),
                             "--check", ABEV, os.path.join(SRC, "completions")],
                            capture_output=True, text=True)
        self.assertEqual(cp.returncode, 0, cp.stdout + cp.stderr)

    def test_zsh_offers_each_commands_options(self):
        with open(ZSH_SCRIPT, encoding="utf-8") as f:
            text = f.read()
        for name, opts in tables().items():
            if not name:
                block = text[text.index("if (( CURRENT == 2 ))"):text.index("local cmd=")]
            else:
                first, _, sub = name.partition(" ")
                block = text[text.index(f"\n\t{first})\n"):]
                block = block[:block.index(";;")]
                if sub:
                    block = block[block.index(f"== {sub} ]]"):]
                    block = block[:block.index("else")] if "else" in block else block
                elif "else" in block:
                    block = block[block.index("else"):]
            found = set(re.findall(r"(?<![\w-])(--?[A-Za-z][\w-]*)(?==|'|,|\}|\[)", block))
            self.assertEqual(found, spellings(opts), name or "abev")


@unittest.skipUnless(BASH, "bash is not installed")
class TestBashCompletion(AbevTestCase):
    def complete(self, *words):
        """COMPREPLY for the command line words (the last one being completed)."""
        script = (f"source {BASH_SCRIPT!r}\n"
                  "COMP_WORDS=(\"$@\"); COMP_CWORD=$(($# - 1))\n"
                  "_abev\n"
                  "printf '%s\\n' \"${COMPREPLY[@]}\"\n")
        cp = subprocess.run([BASH, "--norc", "--noprofile", "-c", script, "bash", *words],
                            capture_output=True, text=True, cwd=self.tmp, timeout=60)
        self.assertEqual(cp.returncode, 0, cp.stderr)
        self.assertEqual(cp.stderr, "")
        return sorted(w for w in cp.stdout.splitlines() if w)

    def test_syntax(self):
        cp = subprocess.run([BASH, "-n", BASH_SCRIPT], capture_output=True, text=True)
        self.assertEqual(cp.returncode, 0, cp.stderr)

    def test_commands(self):
        self.assertEqual(self.complete("abev", "ru"), ["run"])
        self.assertEqual(self.complete("abev", "b"), ["bench"])
        self.assertEqual(self.complete("abev", "help", "in"), ["init"])

    def test_options_and_values(self):
        self.assertEqual(self.complete("abev", "bench", "--sa"), ["--save-plan"])
        self.assertEqual(self.complete("abev", "run", "--dr"), ["--dry-run"])
        self.assertEqual(self.complete("abev", "bench", "--order", "s"),
                         ["sequential", "shuffle"])
        self.assertEqual(self.complete("abev", "export", "ev", "--format", "j"),
                         ["json", "junit"])

    def test_every_option_of_every_command(self):
        words = {"": [], "guard min-executed": ["guard", "min-executed"],
                 "help plan": ["help", "plan"]}
        for name, opts in tables().items():
            with self.subTest(command=name or "abev"):
                line = ["abev", *words.get(name, [name]), "-"]
                self.assertEqual(set(self.complete(*line)), spellings(opts))

    def test_values_follow_each_commands_table(self):
        for name in ("plan.json", "k.key", "k.pub"):
            open(self.path(name), "w").close()
        # --dry-run is a flag (the plan follows); -n is --name NAME of bench (no
        # completion of a name), and not an option of run.
        self.assertEqual(self.complete("abev", "run", "--dry-run", ""), ["plan.json"])
        self.assertEqual(self.complete("abev", "bench", "-n", ""), [])
        self.assertNotIn("-n", self.complete("abev", "run", "-"))
        self.assertEqual(self.complete("abev", "run", "--key", ""), ["k.key"])
        self.assertEqual(self.complete("abev", "verify", "-p", ""), ["k.pub"])
        self.assertEqual(self.complete("abev", "run", "--w"), ["--wait", "--wait-max"])
        self.assertEqual(self.complete("abev", "run", "--ins"), ["--insecure-key-mode"])
        self.assertEqual(self.complete("abev", "results", "--l"), ["--list"])
        self.assertEqual(self.complete("abev", "help", "p"), ["pack", "plan"])
        self.assertEqual(self.complete("abev", "help", "plan", "--m"), ["--markdown"])
        self.assertEqual(self.complete("abev", "guard", ""), ["min-executed"])
        self.assertEqual(self.complete("abev", "guard", "min-executed", "--m"), ["--min"])

    def test_operands(self):
        os.mkdir(self.path("evidence"))
        for name in ("plan.json", "notes.txt", "ev.tar.zst"):
            open(self.path(name), "w").close()
        self.assertEqual(self.complete("abev", "run", ""), ["evidence", "plan.json"])
        self.assertEqual(self.complete("abev", "report", ""), ["evidence"])
        self.assertEqual(self.complete("abev", "compare", "evidence", "e"), ["evidence"])
        self.assertEqual(self.complete("abev", "verify", ""), ["ev.tar.zst", "evidence"])


class TestZshCompletion(unittest.TestCase):
    @unittest.skipUnless(shutil.which("zsh"), "zsh is not installed: _abev not checked")
    def test_syntax(self):
        cp = subprocess.run(["zsh", "-n", ZSH_SCRIPT], capture_output=True, text=True)
        self.assertEqual(cp.returncode, 0, cp.stderr)


class TestInstall(AbevTestCase):
    def test_make_install_places_completions(self):
        if not shutil.which("make"):
            self.skipTest("make is not installed")
        if not os.path.exists(os.path.join(SRC, "abev")):
            self.skipTest("./abev is not built (make install installs it, and this test "
                          "does not build it)")
        dest = self.path("dest")
        # -o abev: install what is there, never rebuild it from here.
        cp = subprocess.run(["make", "-s", "-C", SRC, "-o", "abev", "install",
                             f"DESTDIR={dest}", "PREFIX=/usr"],
                            capture_output=True, text=True, timeout=300)
        self.assertEqual(cp.returncode, 0, cp.stdout + cp.stderr)
        bash_dst = os.path.join(dest, "usr/share/bash-completion/completions/abev")
        zsh_dst = os.path.join(dest, "usr/share/zsh/vendor-completions/_abev")
        for src, dst in ((BASH_SCRIPT, bash_dst), (ZSH_SCRIPT, zsh_dst)):
            with open(src, "rb") as a, open(dst, "rb") as b:
                self.assertEqual(a.read(), b.read(), dst)
        self.assertTrue(os.path.isfile(os.path.join(dest, "usr/bin/abev")))


if __name__ == "__main__":
    unittest.main()
