"""Everyday use of keys and verification: `abev verify` without a key checks
the contents and says UNSIGNED (exit 7), never "verified"; --pubkey on
unsigned evidence fails naming SHA256.sig; the signing key may come from
ABEV_SIGNING_KEY, and the evidence records where it came from; key files
that cannot be right (a public key, a key others can read, an empty
passphrase) are refused with a sentence that says what to do."""
import json
import os
import shutil
import subprocess
import unittest

from common import ABEV, DEMO, AbevTestCase, helper_plan, reseal

EXIT_USAGE, EXIT_VERIFY, EXIT_UNSIGNED, EXIT_NOT_CLEAN = 2, 4, 7, 8
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
            # What a changed evidence says of itself is not repeated as if it held.
            for line in ("seal:", "status:", "tampered:"):
                self.assertNotIn("\n" + line, cp.stdout, what)
            shutil.rmtree(copy)

    # ---- what the evidence says of itself -------------------------------------

    def self_lines(self, out):
        return [l for l in out.splitlines()
                if l.split(":")[0] in ("seal", "status", "decision", "tampered", "runs",
                                       "record")]

    def test_clean_evidence_says_what_it_records(self):
        key, pub = self.keygen()
        self.abev("run", self.plan(), "--out", self.path("ev"), "--key", key, check=0)
        cp = self.abev("verify", self.path("ev"), "--pubkey", pub)
        self.assertEqual(cp.returncode, 0, cp.stdout + cp.stderr)
        self.assertEqual(self.self_lines(cp.stdout), [
            "seal:        intact: the signature is good, and every file is as it was sealed",
            "status:      completed",
            "decision:    no decision",
            "tampered:    none: abev's own files were as it wrote them",
            "runs:        as abev's own user (no run_as): they could reach these files while "
            "abev wrote them; signed as abev's record as far as that user is trusted"])
        self.assertEqual(self.verdict(cp.stdout), ["verdict:     verified"])

    def test_older_evidence_without_the_tampered_list_is_not_called_tampered(self):
        # An abev from before "tampered" was recorded: nothing is known either way,
        # and a completed run still verifies as it did.
        self.validate_evidence_on_teardown = False   # the schema is the current abev's
        self.abev("run", self.plan(), "--out", self.path("ev"), "--unsigned", check=0)
        res = self.load("ev", "result.json")
        del res["tampered"]
        del res["run_as"]
        with open(self.path("ev", "result.json"), "w") as f:
            json.dump(res, f, indent="\t")
        reseal(self.path("ev"))
        cp = self.abev("verify", self.path("ev"))
        self.assertEqual(cp.returncode, EXIT_UNSIGNED, cp.stdout + cp.stderr)
        self.assertIn("status:      completed", cp.stdout.splitlines())
        self.assertEqual([l for l in cp.stdout.splitlines() if l.startswith("tampered:")],
                         ["tampered:    not recorded: an abev older than the \"tampered\" list "
                          "of result.json made this evidence (its notes may say more)"])
        # Nor is whether its runs were trusted apart.
        self.assertNotIn("\nruns:", cp.stdout)
        self.assertEqual(self.verdict(cp.stdout), ["verdict:     " + UNSIGNED_LINE])
        # The other commands read it as before.
        self.abev("report", self.path("ev"), "--out", self.path("r.md"), check=0)

    def test_a_record_that_cannot_be_read_is_not_clean(self):
        # The manifest remade over a result.json that is not abev's, or none at all:
        # the bytes are as listed, but nothing says what they record.
        self.abev("run", self.plan(), "--out", self.path("ev"), "--unsigned", check=0)
        cases = {
            "not an object": (lambda p: open(p, "w").write("[]"),
                              "result.json: (top): expected an object"),
            "unknown status": (lambda p: open(p, "w").write('{"status": "fine"}'),
                               "result.json: status: 'fine' is not a status abev records"),
            "missing": (os.remove, "result.json: missing"),
        }
        for what, (mutate, said) in cases.items():
            copy = self.path("copy")
            shutil.copytree(self.path("ev"), copy)
            mutate(os.path.join(copy, "result.json"))
            reseal(copy)
            cp = self.abev("verify", copy)
            self.assertEqual(cp.returncode, EXIT_NOT_CLEAN, what + "\n" + cp.stdout + cp.stderr)
            self.assertIn("seal:        intact", cp.stdout, what)
            self.assertIn("record:      cannot be read: " + said, cp.stdout, what)
            self.assertEqual(self.verdict(cp.stdout), [
                "verdict:     NOT CLEAN: the contents match the manifest (nobody vouches for "
                "them), but what it records cannot be read"], what)
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
        self.assertIn("matches its manifest SHA256 and is unsigned", cp.stderr)
        cp = self.abev("report", self.path("ev"), "--pubkey", pub)
        self.assertEqual(cp.returncode, EXIT_VERIFY, cp.stderr)
        self.assertIn("SHA256.sig", cp.stderr)

    def test_report_export_compare_check_the_manifest_without_a_key(self):
        """Without --pubkey the manifest is still checked (it needs no key):
        tampered evidence is refused with exit 4 naming the file, intact signed
        evidence is read with a note, and report.md says it was not
        signature-checked where it says "Signed"."""
        key, pub = self.keygen()
        self.abev("run", self.plan(), "--out", self.path("ev"), "--key", key, check=0)
        ev = self.path("ev")
        with open(os.path.join(ev, "report.md"), encoding="utf-8") as f:
            sealed = f.read()
        cp = self.abev("report", ev)
        self.assertEqual(cp.returncode, 0, cp.stderr)
        self.assertIn("is not signature-checked", cp.stderr)
        self.assertIn("Signed (not signature-checked: rendered again by `abev report` without "
                      "`--pubkey`): `SHA256` lists", cp.stdout)
        self.assertNotIn("Signed (not", sealed)
        self.assertEqual(cp.stdout.replace(
            " (not signature-checked: rendered again by `abev report` without `--pubkey`)", ""),
            sealed)
        self.assertEqual(self.abev("report", ev, "--pubkey", pub).stdout, sealed)
        self.abev("compare", ev, ev, check=0)
        shutil.copytree(ev, self.path("bad"))
        bad = self.path("bad")
        with open(os.path.join(bad, "result.json"), "a") as f:
            f.write(" ")
        for args in (("report", bad), ("export", bad, "--format", "csv"),
                     ("export", bad, "--format", "hyperfine"), ("compare", ev, bad),
                     ("compare", bad, ev)):
            with self.subTest(args=args):
                cp = self.abev(*args)
                self.assertEqual(cp.returncode, EXIT_VERIFY, cp.stdout + cp.stderr)
                self.assertIn("problem: result.json: content changed", cp.stderr)
                self.assertIn("does not match its manifest SHA256", cp.stderr)
                self.assertNotIn("Signed", cp.stdout)
                self.assertEqual(cp.stdout, "")

    # ---- the signing key ------------------------------------------------------

    def report_of(self, ev):
        return self.load(os.path.basename(ev), "result.json")["report"]

    def test_key_from_the_environment(self):
        key, pub = self.keygen()
        p = self.plan()
        cp = self.run_abev("run", p, "--out", self.path("ev"), env={"ABEV_SIGNING_KEY": key})
        self.assertEqual(cp.returncode, 0, cp.stderr)
        self.assertTrue(os.path.isfile(self.path("ev", "SHA256.sig")))
        rep = self.report_of(self.path("ev"))
        self.assertEqual((rep["signed"], rep["key_source"]), (True, "environment"))
        self.assertNotIn(key, rep["reproduce"])
        self.assertNotIn("--unsigned", rep["reproduce"])
        cp = self.abev("verify", self.path("ev"), "--pubkey", pub)
        self.assertEqual(cp.returncode, 0, cp.stdout)
        self.assertIn("verdict:     verified", cp.stdout)
        # --key wins over the environment, which may even name nothing usable.
        cp = self.run_abev("run", p, "--out", self.path("ev2"), "--key", key,
                           env={"ABEV_SIGNING_KEY": self.path("nonexistent.key")})
        self.assertEqual(cp.returncode, 0, cp.stderr)
        rep = self.report_of(self.path("ev2"))
        self.assertEqual(rep["key_source"], "option")
        self.assertIn("--key " + key, rep["reproduce"])
        # --unsigned is explicit: it beats the environment.
        cp = self.run_abev("run", p, "--out", self.path("ev3"), "--unsigned",
                           env={"ABEV_SIGNING_KEY": key})
        self.assertEqual(cp.returncode, 0, cp.stderr)
        self.assertFalse(os.path.exists(self.path("ev3", "SHA256.sig")))
        rep = self.report_of(self.path("ev3"))
        self.assertEqual((rep["signed"], rep["key_source"]), (False, None))
        # Neither: the message names all three ways.
        cp = self.run_abev("run", p, "--out", self.path("ev4"))
        self.assertEqual(cp.returncode, EXIT_USAGE)
        for word in ("--key", "ABEV_SIGNING_KEY", "--unsigned"):
            self.assertIn(word, cp.stderr)
        # An environment key is checked like any other, and named by the variable.
        cp = self.run_abev("run", p, "--out", self.path("ev4"), env={"ABEV_SIGNING_KEY": pub})
        self.assertEqual(cp.returncode, EXIT_USAGE)
        self.assertIn(f"{pub} is a public key; ABEV_SIGNING_KEY needs the private key "
                      f"({key})", cp.stderr)
        self.assertFalse(os.path.exists(self.path("ev4")))

    def evidence_text(self, ev):
        """Every file of ev, as one string."""
        parts = []
        for root, _, files in os.walk(ev):
            for f in files:
                with open(os.path.join(root, f), "rb") as fh:
                    parts.append(fh.read().decode("utf-8", "replace"))
        return "\n".join(parts)

    def assert_no_key_material(self, text, key_text, what):
        # Every line of the key's base64 body, and the body joined, is absent.
        body = [l for l in key_text.splitlines() if l and not l.startswith("-----")]
        self.assertTrue(body)
        for line in body + ["".join(body)]:
            self.assertNotIn(line, text, f"key material in {what}")
            self.assertNotIn(line[:24], text, f"key material in {what}")

    def test_key_text_in_the_environment_signs_and_is_never_echoed(self):
        key, pub = self.keygen()
        with open(key) as f:
            text = f.read()
        p = self.plan()
        # The key's text, as a CI secret holds it, signs.
        cp = self.run_abev("run", p, "--out", self.path("ev"), env={"ABEV_SIGNING_KEY": text})
        self.assertEqual(cp.returncode, 0, cp.stderr)
        rep = self.report_of(self.path("ev"))
        self.assertEqual((rep["signed"], rep["key_source"]), (True, "environment"))
        v = self.abev("verify", self.path("ev"), "--pubkey", pub)
        self.assertEqual(v.returncode, 0, v.stdout)
        self.assert_no_key_material(cp.stdout + cp.stderr, text, "the run's output")
        self.assert_no_key_material(self.evidence_text(self.path("ev")), text, "the evidence")
        # A dry run checks it and names its fingerprint, not its text.
        cp = self.run_abev("run", p, "--dry-run", env={"ABEV_SIGNING_KEY": text})
        self.assertEqual(cp.returncode, 0, cp.stderr)
        self.assertIn("key:      the key text in ABEV_SIGNING_KEY (not shown), checked: "
                      "fingerprint ", cp.stdout)
        self.assert_no_key_material(cp.stdout + cp.stderr, text, "the dry run's output")
        # Broken text, a public key's text, key text given to --key: refused, never shown.
        body = [l for l in text.splitlines() if l and not l.startswith("-----")]
        broken = text.replace(body[0], body[0][:20])
        with open(pub + ".pem") as f:
            pub_text = f.read()
        cases = [
            (("run", p, "--out", self.path("x1")), {"ABEV_SIGNING_KEY": broken},
             "the key text in ABEV_SIGNING_KEY is not a private key abev can read"),
            (("run", p, "--dry-run"), {"ABEV_SIGNING_KEY": broken},
             "the key text in ABEV_SIGNING_KEY is not a private key abev can read"),
            (("run", p, "--out", self.path("x2")), {"ABEV_SIGNING_KEY": pub_text},
             "the key text in ABEV_SIGNING_KEY is a public key (not shown)"),
            (("run", p, "--out", self.path("x3"), "--key", text), {},
             "--key names a key file, but was given text that looks like a key (not shown)"),
            (("bench", "-r", "1", "--out", self.path("x4"), "true", "false"),
             {"ABEV_SIGNING_KEY": broken},
             "the key text in ABEV_SIGNING_KEY is not a private key abev can read"),
        ]
        for args, env, want in cases:
            cp = self.run_abev(*args, env=env)
            self.assertEqual(cp.returncode, EXIT_USAGE, (args[:2], cp.stderr))
            self.assertIn(want, cp.stderr)
            self.assert_no_key_material(cp.stdout + cp.stderr, broken, f"{args[:2]}")
            self.assert_no_key_material(cp.stdout + cp.stderr, text, f"{args[:2]}")
            self.assert_no_key_material(cp.stdout + cp.stderr, pub_text, f"{args[:2]}")

    def test_public_key_as_key_is_named(self):
        key, pub = self.keygen()
        p = self.plan()
        for given in (pub, pub + ".pem"):
            cp = self.run_abev("run", p, "--out", self.path("ev"), "--key", given)
            self.assertEqual(cp.returncode, EXIT_USAGE, cp.stderr)
            self.assertIn(f"{given} is a public key; --key needs the private key ({key})",
                          cp.stderr)
            self.assertNotRegex(cp.stderr, r"error:[0-9A-F]{8}|DECODER|PEM routines")
            self.assertFalse(os.path.exists(self.path("ev")))
        # Anything else that is no key: a plain sentence naming the file and what was expected.
        junk = self.path("junk.key")
        with open(junk, "w") as f:
            f.write("not a key\n")
        os.chmod(junk, 0o600)
        cp = self.run_abev("run", p, "--out", self.path("ev"), "--key", junk)
        self.assertEqual(cp.returncode, EXIT_USAGE, cp.stderr)
        self.assertIn(f"{junk} is not a private key abev can read", cp.stderr)
        self.assertIn("PKCS#8 PEM private key", cp.stderr)
        self.assertIn("abev keygen", cp.stderr)
        self.assertNotRegex(cp.stderr, r"error:[0-9A-F]{8}|DECODER|PEM routines")

    def test_key_readable_by_others_is_refused(self):
        key, pub = self.keygen()
        p = self.plan()
        for mode in (0o644, 0o640, 0o604):
            os.chmod(key, mode)
            cp = self.run_abev("run", p, "--out", self.path("ev"), "--key", key)
            self.assertEqual(cp.returncode, EXIT_USAGE, cp.stderr)
            self.assertIn(f"chmod 600 {key}", cp.stderr)
            self.assertIn(f"mode {mode:04o}", cp.stderr)
            self.assertFalse(os.path.exists(self.path("ev")))
        os.chmod(key, 0o644)
        cp = self.run_abev("run", p, "--out", self.path("ev"), "--key", key,
                           "--insecure-key-mode")
        self.assertEqual(cp.returncode, 0, cp.stderr)
        self.assertIn("warning", cp.stderr)
        self.assertIn("--insecure-key-mode", cp.stderr)
        self.abev("verify", self.path("ev"), "--pubkey", pub, check=0)
        # A path that needs quoting gets it in the command to run.
        odd = self.path("my key.key")
        shutil.copy(key, odd)
        os.chmod(odd, 0o644)
        cp = self.run_abev("run", p, "--out", self.path("ev2"), "--key", odd)
        self.assertEqual(cp.returncode, EXIT_USAGE, cp.stderr)
        self.assertIn(f"chmod 600 '{odd}'", cp.stderr)
        os.chmod(key, 0o600)
        self.abev("run", p, "--out", self.path("ev3"), "--key", key, check=0)

    def test_empty_passphrase_is_the_same_usage_error_both_ways(self):
        with open(self.path("pass"), "w") as f:
            f.write("secret\n")
        key, _ = self.keygen("enc", "--passphrase-file", self.path("pass"))
        plain, _ = self.keygen("plain")
        with open(self.path("empty"), "w") as f:
            f.write("\nsecond line\n")
        p = self.plan()
        for k in (key, plain):
            by_file = self.run_abev("run", p, "--out", self.path("ev"), "--key", k,
                                    "--passphrase-file", self.path("empty"))
            by_env = self.run_abev("run", p, "--out", self.path("ev"), "--key", k,
                                   "--passphrase-env", "ABEV_TEST_PASS",
                                   env={"ABEV_TEST_PASS": ""})
            self.assertEqual((by_file.returncode, by_env.returncode), (EXIT_USAGE, EXIT_USAGE),
                             by_file.stderr + by_env.stderr)
            self.assertIn("empty", by_file.stderr)
            self.assertIn("empty", by_env.stderr)
            self.assertFalse(os.path.exists(self.path("ev")))
        for i, how in enumerate((["--passphrase-file", self.path("empty")],
                                 ["--passphrase-env", "ABEV_TEST_PASS"])):
            cp = self.run_abev("keygen", "--out", self.path(f"k{i}"), *how,
                               env={"ABEV_TEST_PASS": ""})
            self.assertEqual(cp.returncode, EXIT_USAGE, cp.stderr)
            self.assertIn("empty", cp.stderr)
            self.assertFalse(os.path.exists(self.path(f"k{i}.key")))


CORPUS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared",
                      "corpus")
if not os.path.isdir(CORPUS):
    CORPUS = "/work/shared/corpus"

TRX = """\ufeff<?xml version="1.0" encoding="utf-8"?>
<TestRun xmlns="http://microsoft.com/schemas/VisualStudio/TeamTest/2010">
  <Results>
    <UnitTestResult testName="Ns.Parse.Json" outcome="Passed" duration="00:00:00.0123450"/>
    <UnitTestResult testName="Ns.Parse.Xml" outcome="Failed" duration="00:00:01.5000000"/>
    <UnitTestResult testName="Ns.Lock" outcome="NotExecuted"/>
    <UnitTestResult testName="Rows" resultType="DataDrivenTest" outcome="Passed">
      <InnerResults>
        <UnitTestResult testName="Rows (0)" resultType="DataDrivenDataRow" outcome="Passed"
                        duration="00:00:00.0010000"/>
        <UnitTestResult testName="Rows (1)" resultType="DataDrivenDataRow"
                        duration="00:00:00.0020000"/>
      </InnerResults>
    </UnitTestResult>
  </Results>
</TestRun>
"""

JUNIT = """<?xml version="1.0"?>
<testsuites>
  <testsuite name="s">
    <testcase classname="pkg.Cls" name="fast" time="0.25"/>
    <testcase classname="pkg.Cls" name="tab&#9;in name" time="1,234.5"><failure/></testcase>
    <testcase name="bare"><skipped/></testcase>
  </testsuite>
</testsuites>
"""


class ResultsList(AbevTestCase):
    def fixture(self, name, text):
        p = self.path(name)
        with open(p, "w", encoding="utf-8") as f:
            f.write(text)
        return p

    def test_list_own_fixtures(self):
        trx = self.fixture("t.trx", TRX)
        cp = self.abev("results", "--list", trx, check=0)
        self.assertEqual(cp.stdout.splitlines(), [
            "Ns.Parse.Json\tpassed\t12.345 ms",
            "Ns.Parse.Xml\tfailed\t1500.000 ms",
            "Ns.Lock\tskipped\t-",
            "Rows (0)\tpassed\t1.000 ms",
            "Rows (1)\terror\t2.000 ms",
        ])
        junit = self.fixture("j.xml", JUNIT)
        cp = self.abev("results", "--list", trx, junit, check=0)
        lines = cp.stdout.splitlines()
        self.assertEqual(len(lines), 8)
        self.assertTrue(all(l.startswith(trx + "\t") for l in lines[:5]), lines)
        self.assertEqual(lines[5:], [
            f"{junit}\tpkg.Cls.fast\tpassed\t250.000 ms",
            f"{junit}\tpkg.Cls.tab\\tin name\tfailed\t1234500.000 ms",
            f"{junit}\tbare\tskipped\t-",
        ])
        # Deterministic: the same bytes twice, and the file order is kept.
        again = self.abev("results", "--list", trx, junit, check=0)
        self.assertEqual(again.stdout, cp.stdout)
        swapped = self.abev("results", "--list", junit, trx, check=0).stdout.splitlines()
        self.assertTrue(swapped[0].startswith(junit + "\t"))
        # The guard still works beside the list; --json does not.
        cp = self.abev("results", "--list", "--min-executed", "99", trx)
        self.assertEqual(cp.returncode, 1)
        self.assertIn("min_executed: fail", cp.stdout)
        cp = self.abev("results", "--list", "--json", trx)
        self.assertEqual(cp.returncode, 2)
        self.assertIn("--list", self.abev("results", "--help", check=0).stdout)

    def test_list_corpus(self):
        trx = os.path.join(CORPUS, "trx", "dorny-dotnet-xunit-vstest.trx")
        junit = os.path.join(CORPUS, "junit", "dorny-pytest.xml")
        if not (os.path.isfile(trx) and os.path.isfile(junit)):
            self.skipTest(f"the shared corpus is not at {CORPUS}")
        for path in (trx, junit):
            counts = self.abev("results", "--json", path, check=0)
            total = json.loads(counts.stdout)["total"]
            lines = self.abev("results", "--list", path, check=0).stdout.splitlines()
            self.assertEqual(len(lines), total["total"], path)
            outcomes = [l.split("\t")[1] for l in lines]
            self.assertEqual(outcomes.count("passed"), total["passed"], path)
            self.assertEqual(outcomes.count("failed"), total["failed"], path)
            self.assertEqual(outcomes.count("skipped"), total["skipped"], path)
            for l in lines:
                self.assertEqual(len(l.split("\t")), 3, l)
                self.assertRegex(l.split("\t")[2], r"^(-|[0-9]+\.[0-9]{3} ms)$")
        names = [l.split("\t")[0] for l in
                 self.abev("results", "--list", trx, check=0).stdout.splitlines()]
        self.assertIn("DotnetTests.XUnitTests.CalculatorTests.Passing_Test", names)
        # xUnit's display name, qualified by the class of its definition.
        self.assertIn("DotnetTests.XUnitTests.CalculatorTests.Custom Name", names)

    @unittest.skipUnless(DEMO and os.access(DEMO, os.X_OK), "the demo suite is not built")
    def test_metric_matching_nothing_lists_nearest_names(self):
        plan = {
            "schema": "abev.plan/1", "name": "nearest",
            "variants": [{"name": "a", "command": [DEMO, "--trx", "{run_dir}/suite.trx"],
                          "env": {"DEMO_IMPL": "baseline"}}],
            "schedule": {"runs": 1, "warmups": 0},
            "results": {"files": "{run_dir}/*.trx"},
            "load": {"max_cpu_wait_pct": 100, "max_foreign_cpu": 64, "max_repeats": 0},
            "metrics": [{"name": "sieve", "source": "duration", "test": "prime_seive"},
                        {"name": "crc", "source": "results", "test": "*CRC_32*",
                         "unit": "ms", "pattern": "BENCH crc32_ms=([0-9.]+)"}],
        }
        _, res = self.run_plan(plan, 1)
        inv = res["invocations"][0]
        g = [g for g in inv["guards"] if g["guard"] == "metrics"][0]
        self.assertEqual(g["verdict"], "fail")
        self.assertRegex(g["reason"], r"'sieve': no test result matches 'prime_seive'; nearest "
                                      r"test names: 'DemoSuite.prime_sieve'")
        self.assertRegex(g["reason"], r"'crc': no test result matches '\*CRC_32\*'; nearest "
                                      r"test names: 'DemoSuite.crc32'")
        self.assertIn("abev results --list", g["reason"])
        # The names abev lists for the copied file are the ones suggested.
        listed = self.abev("results", "--list", self.path("ev", inv["dir"], "suite.trx"),
                           check=0).stdout
        self.assertIn("DemoSuite.prime_sieve\t", listed)
        self.assertIn("DemoSuite.crc32\t", listed)
