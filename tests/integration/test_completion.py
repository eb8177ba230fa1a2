"""Shell completion: completions/abev.bash parses and completes commands,
options, option values and operands when bash calls it; completions/_abev
parses with zsh -n (where zsh is installed); make install puts both where
bash-completion and zsh look, under DESTDIR."""
import os
import shutil
import subprocess
import unittest

from common import SRC, AbevTestCase

BASH = shutil.which("bash")
BASH_SCRIPT = os.path.join(SRC, "completions", "abev.bash")
ZSH_SCRIPT = os.path.join(SRC, "completions", "_abev")


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
        self.assertEqual(self.complete("abev", "bench", "--order", "s"), ["shuffle"])
        self.assertEqual(self.complete("abev", "export", "ev", "--format", "j"),
                         ["json", "junit"])

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
