"""Everyday use of keys and verification: `abev verify` without a key checks
the contents and says UNSIGNED (exit 7), never "verified"; --pubkey on
unsigned evidence fails naming SHA256.sig; the signing key may come from
ABEV_SIGNING_KEY, and the evidence records where it came from; key files
that cannot be right (a public key, a key others can read, an empty
passphrase) are refused with a sentence that says what to do."""
import os
import shutil
import subprocess

from common import ABEV, AbevTestCase, helper_plan

EXIT_USAGE, EXIT_VERIFY, EXIT_UNSIGNED = 2, 4, 7
UNSIGNED_LINE = "UNSIGNED: contents match the manifest, but nobody vouches for it"


class KeysAndVerify(AbevTestCase):
    def plan(self):
        return self.write_plan(helper_plan([("a", ["exit", "0"]), ("b", ["exit", "0"])]))

    def keygen(self, prefix="k", *extra, env=None):
        self.abev("keygen", "--out", self.path(prefix), *extra, env=env, check=0)
        return self.path(prefix + ".key"), self.path(prefix + ".pub")

    def run_abev(self, *args, env=None, drop=()):
        """abev exactly as given (no --unsigned added), with env added to and
        the names in drop removed from the environment."""
        e = {k: v for k, v in os.environ.items() if k not in drop and k != "ABEV_SIGNING_KEY"}
        e.update(env or {})
        return subprocess.run([ABEV, *args], capture_output=True, text=True, env=e,
                              stdin=subprocess.DEVNULL, timeout=300)

    def verdict(self, out):
        return [l for l in out.splitlines() if l.startswith("verdict:")]

    # ---- verify without a key ------------------------------------------------

    def test_unsigned_evidence_verifies_as_unsigned(self):
        self.abev("run", self.plan(), "--out", self.path("ev"), "--unsigned", check=0)
        cp = self.abev("verify", self.path("ev"))
        self.assertEqual(cp.returncode, EXIT_UNSIGNED, cp.stdout + cp.stderr)
        self.assertEqual(self.verdict(cp.stdout), ["verdict:     " + UNSIGNED_LINE])
        self.assertIn("no SHA256.sig", cp.stdout)
        self.assertNotIn("problem:", cp.stdout)
        # A bundle of it too.
        self.abev("pack", self.path("ev"), "--out", self.path("ev.tar.gz"), check=0)
        cp = self.abev("verify", self.path("ev.tar.gz"))
        self.assertEqual(cp.returncode, EXIT_UNSIGNED, cp.stdout + cp.stderr)
        self.assertIn(UNSIGNED_LINE, cp.stdout)

    def test_tampered_unsigned_evidence_fails(self):
        self.abev("run", self.plan(), "--out", self.path("ev"), "--unsigned", check=0)
        cases = {
            "changed": lambda d: open(os.path.join(d, "report.md"), "a").write("x"),
            "unlisted": lambda d: open(os.path.join(d, "extra.txt"), "w").write("x"),
            "missing": lambda d: os.remove(os.path.join(d, "plan.json")),
            "symlink": lambda d: os.symlink("/etc/passwd", os.path.join(d, "passwd")),
        }
        names = {"changed": "report.md", "unlisted": "extra.txt", "missing": "plan.json",
                 "symlink": "passwd"}
        for what, mutate in cases.items():
            copy = self.path("copy-" + what)
            shutil.copytree(self.path("ev"), copy, symlinks=True)
            mutate(copy)
            cp = self.abev("verify", copy)
            self.assertEqual(cp.returncode, EXIT_VERIFY, what + "\n" + cp.stdout + cp.stderr)
            self.assertRegex(cp.stdout, rf"problem: +{names[what]}: ", what)
            self.assertNotIn(UNSIGNED_LINE, cp.stdout, what)
            shutil.rmtree(copy)

    def test_pubkey_on_unsigned_evidence_names_the_signature(self):
        _, pub = self.keygen()
        self.abev("run", self.plan(), "--out", self.path("ev"), "--unsigned", check=0)
        cp = self.abev("verify", self.path("ev"), "--pubkey", pub)
        self.assertEqual(cp.returncode, EXIT_VERIFY, cp.stdout + cp.stderr)
        self.assertRegex(cp.stdout, r"problem: +SHA256\.sig: missing: the evidence is unsigned")
        self.assertIn("signature:   MISSING", cp.stdout)
        self.assertNotIn(UNSIGNED_LINE, cp.stdout)

    def test_signed_evidence_without_key_says_how_to_check(self):
        key, pub = self.keygen()
        self.abev("run", self.plan(), "--out", self.path("ev"), "--key", key, check=0)
        cp = self.abev("verify", self.path("ev"))
        self.assertEqual(cp.returncode, EXIT_UNSIGNED, cp.stdout + cp.stderr)
        self.assertIn("not checked", cp.stdout)
        self.assertIn("--pubkey KEY.pub", cp.stdout)
        self.assertIn(UNSIGNED_LINE, cp.stdout)
        self.abev("verify", self.path("ev"), "--pubkey", pub, check=0)
        # A SHA256 rewritten to match a changed file, apart from its signature
        # file, is caught even without the key: SHA256.sig carries a copy.
        copy = self.path("copy")
        shutil.copytree(self.path("ev"), copy)
        with open(os.path.join(copy, "report.md"), "a") as f:
            f.write("better numbers\n")
        subprocess.run("grep -v '(report.md)' SHA256 > S && sha256sum --tag report.md >> S && "
                       "LC_ALL=C sort -o SHA256 S && rm S", shell=True, cwd=copy, check=True)
        cp = self.abev("verify", copy)
        self.assertEqual(cp.returncode, EXIT_VERIFY, cp.stdout + cp.stderr)
        self.assertRegex(cp.stdout, r"problem: +SHA256: differs from the \(unchecked\) copy")

    def test_other_commands_keep_their_pubkey_behaviour(self):
        _, pub = self.keygen()
        self.abev("run", self.plan(), "--out", self.path("ev"), "--unsigned", check=0)
        cp = self.abev("report", self.path("ev"))
        self.assertEqual(cp.returncode, 0, cp.stderr)
        self.assertIn("was not verified", cp.stderr)
        cp = self.abev("report", self.path("ev"), "--pubkey", pub)
        self.assertEqual(cp.returncode, EXIT_VERIFY, cp.stderr)
        self.assertIn("SHA256.sig", cp.stderr)
