"""abev verify of evidence whose seal a signal cut short: the files abev had
not hashed stay in the evidence, not listed in SHA256, and result.json's
"unsealed" names them, or a directory above them. verify accepts exactly
those, and only from a result.json that SHA256 lists as it is (with
--pubkey: that the good signature lists); it counts and names them on one
line and calls the evidence NOT CLEAN (exit 8). Any other unlisted file is
still "not listed in SHA256" (exit 4), and a name the list may not hold is a
problem of result.json. A bundle abev pack made of such evidence verifies
the same.

The evidence is made by `abev run` and then edited as an interrupted seal
leaves it: files added under runs/, their names put in result.json, and
result.json's line of SHA256 rewritten (SHA256.sig signed again with
openssl for the signed case)."""
import base64
import hashlib
import json
import os
import re
import shutil
import subprocess
import unittest

from common import ABEV, AbevTestCase, helper_plan
from test_kill_sealing import traced_env

EXIT_VERIFY, EXIT_UNSIGNED, EXIT_NOT_CLEAN = 4, 7, 8
UNSEALED = ("unsealed:    {n} file(s), {bytes} bytes, present but not hashed: abev was "
            "interrupted while sealing (result.json names them): {names}")

# What the interrupted seal did not reach: (name, size).
LATE = [("runs/b/run-1/big.bin", 300000), ("runs/a/run-1/late.txt", 5)]


class VerifyUnsealed(AbevTestCase):
    def make_evidence(self, name="ev", *run_args):
        plan = self.write_plan(helper_plan([("a", ["exit", "0"]), ("b", ["exit", "0"])]))
        self.abev("run", plan, "--out", self.path(name), *run_args, check=0)
        return self.path(name)

    def add(self, ev, files):
        """Writes each (name, size) of files into ev, and returns their bytes in all."""
        for name, size in files:
            os.makedirs(os.path.dirname(os.path.join(ev, name)), exist_ok=True)
            with open(os.path.join(ev, name), "wb") as f:
                f.write(bytes(i % 251 for i in range(size)))
        return sum(size for _, size in files)

    def interrupt(self, ev, unsealed, status="interrupted", relist=True):
        """Edits ev's result.json as abev leaves it when a signal stops its
        seal (its "unsealed" list, its status), and, with relist, lists its
        new digest in SHA256 as the seal did."""
        with open(os.path.join(ev, "result.json"), encoding="utf-8") as f:
            res = json.load(f)
        res["unsealed"] = unsealed
        res["status"] = status
        res["interrupt"] = "SIGTERM" if status == "interrupted" else None
        with open(os.path.join(ev, "result.json"), "w", encoding="utf-8") as f:
            json.dump(res, f, indent="\t")
        if not relist:
            return
        with open(os.path.join(ev, "result.json"), "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()
        with open(os.path.join(ev, "SHA256"), encoding="utf-8") as f:
            lines = f.read().splitlines()
        lines = [f"SHA256 (result.json) = {digest}" if l.startswith("SHA256 (result.json) ")
                 else l for l in lines]
        with open(os.path.join(ev, "SHA256"), "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")

    def verify(self, path, *args, expect):
        cp = self.abev("verify", path, *args)
        self.assertEqual(cp.returncode, expect, cp.stdout + cp.stderr)
        return cp.stdout

    def lines(self, out, what):
        return [l for l in out.splitlines() if l.startswith(what + ":")]

    def unsealed_line(self, files, names=None):
        return UNSEALED.format(n=len(files), bytes=sum(s for _, s in files),
                               names=", ".join(names or sorted(n for n, _ in files)))

    def test_named_files_are_accepted_and_the_record_is_not_clean(self):
        ev = self.make_evidence()
        self.add(ev, LATE)
        # A path that is not there (the run directory was never made) is no problem.
        self.interrupt(ev, [n for n, _ in LATE] + ["runs/a/run-9"])
        out = self.verify(ev, expect=EXIT_NOT_CLEAN)
        self.assertEqual(self.lines(out, "problem"), [])
        self.assertEqual(self.lines(out, "unsealed"), [self.unsealed_line(LATE)])
        self.assertIn("status:      interrupted (SIGTERM)", out.splitlines())
        verdict = self.lines(out, "verdict")
        self.assertEqual(len(verdict), 1, out)
        self.assertTrue(verdict[0].startswith("verdict:     NOT CLEAN: "), verdict)
        self.assertIn("left 3 paths out of the seal", verdict[0])
        # Even a record that says "completed" is no clean one with files left out.
        self.interrupt(ev, [n for n, _ in LATE], status="completed")
        out = self.verify(ev, expect=EXIT_NOT_CLEAN)
        self.assertEqual(self.lines(out, "unsealed"), [self.unsealed_line(LATE)])
        # The commands that verify first read it, and say what nothing vouches for.
        cp = self.abev("report", ev, "--out", self.path("r.md"), check=0)
        self.assertIn("holds 2 file(s) abev did not hash", cp.stderr)

    @unittest.skipUnless(shutil.which("strace"), "strace is not installed")
    def test_a_file_no_manifest_lists_is_never_read(self):
        # What the seal left out may be a sparse terabyte: whatever its bytes it
        # is unlisted, so verify opens it not at all (strace counts the opens).
        ev = self.make_evidence()
        big = os.path.join(ev, "runs", "b", "run-1", "huge.bin")
        # A run that printed nothing left no directory (no log): made again here.
        os.makedirs(os.path.dirname(big), exist_ok=True)
        with open(big, "wb") as f:
            f.truncate(1 << 40)
        self.add(ev, LATE)
        self.interrupt(ev, [n for n, _ in LATE] + ["runs/b/run-1/huge.bin"])
        trace = self.path("trace")
        cp = subprocess.run(["strace", "-f", "-o", trace, "-e", "trace=open,openat,openat2",
                             ABEV, "verify", ev], capture_output=True, text=True,
                            timeout=600, env=traced_env())
        self.assertEqual(cp.returncode, EXIT_NOT_CLEAN, cp.stdout + cp.stderr)
        with open(trace) as f:
            opened = [l for l in f if "huge.bin" in l or "late.txt" in l]
        self.assertEqual(opened, [])
        # A listed file is still read and checked.
        with open(trace) as f:
            self.assertTrue(any("plan.json" in l for l in f))

    def test_a_file_the_list_does_not_name_is_not_listed(self):
        ev = self.make_evidence()
        self.add(ev, LATE)
        self.interrupt(ev, [LATE[0][0]])
        out = self.verify(ev, expect=EXIT_VERIFY)
        self.assertEqual(self.lines(out, "problem"),
                         ["problem:     runs/a/run-1/late.txt: not listed in SHA256"])
        self.assertEqual(self.lines(out, "unsealed"), [self.unsealed_line(LATE[:1])])
        self.assertEqual(self.lines(out, "verdict"), ["verdict:     FAILED (1 problem)"])

    def test_a_named_directory_stands_for_what_is_beneath_it(self):
        ev = self.make_evidence()
        files = [(f"runs/b/run-2/f{i:02}.bin", 1000 + i) for i in range(11)]
        files.append(("runs/b/run-2/deep/test.log", 7))
        self.add(ev, files)
        # Directories without a listed file: part of what was left out.
        os.makedirs(os.path.join(ev, "runs/b/run-2/empty"))
        os.makedirs(os.path.join(ev, "runs/b/run-2/deep/er"))
        self.interrupt(ev, ["runs/b/run-2"])
        out = self.verify(ev, expect=EXIT_NOT_CLEAN)
        self.assertEqual(self.lines(out, "problem"), [])
        names = sorted(n for n, _ in files)
        # The first ten by name, then "...".
        self.assertEqual(self.lines(out, "unsealed"),
                         [self.unsealed_line(files, names[:10] + ["..."])])
        # Beside it, neither a file nor an empty directory is excused.
        self.add(ev, [("runs/b/run-1/stray.txt", 1)])
        os.makedirs(os.path.join(ev, "runs/b/run-20"))
        out = self.verify(ev, expect=EXIT_VERIFY)
        self.assertEqual(sorted(self.lines(out, "problem")), [
            "problem:     runs/b/run-1/stray.txt: not listed in SHA256",
            "problem:     runs/b/run-20: unlisted directory: SHA256 lists no file in it, and "
            "an extracted copy must hold exactly what was signed"])

    def test_names_the_list_may_not_hold_are_not_honoured(self):
        self.validate_evidence_on_teardown = False   # the list breaks the schema on purpose
        ev = self.make_evidence()
        self.add(ev, LATE + [("extra.txt", 3)])
        bad = {"extra.txt": "not beneath runs/", "runs": "not beneath runs/",
               "runs/../extra.txt": "'..' component", "/tmp/x": "absolute path",
               "": "empty name", "runs/a/./run-1": "'.' component"}
        self.interrupt(ev, [n for n, _ in LATE] + list(bad))
        out = self.verify(ev, expect=EXIT_VERIFY)
        problems = self.lines(out, "problem")
        for name, why in bad.items():
            self.assertIn(f"problem:     result.json: \"unsealed\" names '{name}' ({why}): abev "
                          f"leaves only what is beneath runs/ out of the seal; not honoured",
                          problems)
        self.assertIn("problem:     extra.txt: not listed in SHA256", problems)
        self.assertEqual(len(problems), len(bad) + 1, out)
        # The names it may hold still count.
        self.assertEqual(self.lines(out, "unsealed"), [self.unsealed_line(LATE)])

    def test_a_changed_result_json_is_not_honoured(self):
        ev = self.make_evidence()
        self.add(ev, LATE)
        self.interrupt(ev, [n for n, _ in LATE])
        self.verify(ev, expect=EXIT_NOT_CLEAN)
        # Whoever adds a file and names it, without listing result.json anew.
        self.add(ev, [("runs/a/run-1/planted.txt", 4)])
        self.interrupt(ev, [n for n, _ in LATE] + ["runs/a/run-1/planted.txt"], relist=False)
        out = self.verify(ev, expect=EXIT_VERIFY)
        problems = self.lines(out, "problem")
        self.assertTrue(any(p.startswith("problem:     result.json: content changed") for p in
                            problems), out)
        for name in ["runs/a/run-1/planted.txt"] + [n for n, _ in LATE]:
            self.assertIn(f"problem:     {name}: not listed in SHA256", problems)
        self.assertEqual(self.lines(out, "unsealed"), [])

    def test_a_bundle_abev_pack_made_verifies_the_same(self):
        ev = self.make_evidence()
        self.add(ev, LATE)
        os.makedirs(os.path.join(ev, "runs/a/run-7"))
        self.interrupt(ev, [n for n, _ in LATE] + ["runs/a/run-7"])
        cp = self.abev("pack", ev, "--out", self.path("ev.tar.gz"), check=0)
        self.assertIn("holds 2 file(s) abev did not hash", cp.stderr)
        out = self.verify(self.path("ev.tar.gz"), expect=EXIT_NOT_CLEAN)
        self.assertIn("evidence:    " + self.path("ev.tar.gz") + " (bundle)", out.splitlines())
        self.assertEqual(self.lines(out, "problem"), [])
        self.assertEqual(self.lines(out, "unsealed"), [self.unsealed_line(LATE)])
        # abev pack still refuses a file nobody named, as abev verify does.
        self.add(ev, [("runs/b/run-1/stray.txt", 1)])
        cp = self.abev("pack", ev, "--out", self.path("bad.tar.gz"), check=EXIT_VERIFY)
        self.assertIn("runs/b/run-1/stray.txt: not listed in SHA256", cp.stderr)
        self.assertFalse(os.path.exists(self.path("bad.tar.gz")))

    def resign(self, ev, key, pub):
        """Signs ev's SHA256 anew with key, as abev's seal does (signify's
        embedded form: comment, "Ed" + key number + Ed25519 signature, message)."""
        with open(pub, encoding="ascii") as f:
            keynum = base64.b64decode(f.read().splitlines()[1])[2:10]
        manifest = os.path.join(ev, "SHA256")
        sig = subprocess.run(["openssl", "pkeyutl", "-sign", "-inkey", key, "-rawin", "-in",
                              manifest], capture_output=True, check=True).stdout
        self.assertEqual(len(sig), 64)
        with open(manifest, "rb") as f:
            text = f.read()
        with open(os.path.join(ev, "SHA256.sig"), "wb") as f:
            f.write(b"untrusted comment: abev evidence signature, key " + keynum.hex().encode() +
                    b"\n" + base64.b64encode(b"Ed" + keynum + sig) + b"\n" + text)

    def test_signed_evidence_is_honoured_only_as_signed(self):
        if not shutil.which("openssl"):
            self.skipTest("openssl is not installed: the seal cannot be signed anew here")
        self.abev("keygen", "--out", self.path("k"), check=0)
        key, pub = self.path("k.key"), self.path("k.pub")
        ev = self.make_evidence("ev", "--key", key)
        self.add(ev, LATE)
        self.interrupt(ev, [n for n, _ in LATE])
        # SHA256 lists the new result.json, but the signature still covers the old one.
        out = self.verify(ev, "--pubkey", pub, expect=EXIT_VERIFY)
        problems = self.lines(out, "problem")
        self.assertIn("problem:     runs/b/run-1/big.bin: not listed in SHA256", problems)
        self.assertTrue(any(re.match(r"problem: +result\.json: content changed", p)
                            for p in problems), out)
        self.assertEqual(self.lines(out, "unsealed"), [])
        # Signed as the seal would have signed it: accepted, with the key and without.
        self.resign(ev, key, pub)
        out = self.verify(ev, "--pubkey", pub, expect=EXIT_NOT_CLEAN)
        self.assertIn("signature:   good", out.splitlines())
        self.assertEqual(self.lines(out, "problem"), [])
        self.assertEqual(self.lines(out, "unsealed"), [self.unsealed_line(LATE)])
        out = self.verify(ev, expect=EXIT_NOT_CLEAN)
        self.assertEqual(self.lines(out, "unsealed"), [self.unsealed_line(LATE)])
        # Signed by another key: with --pubkey, nothing vouches for the list.
        self.abev("keygen", "--out", self.path("other"), check=0)
        self.resign(ev, self.path("other.key"), self.path("other.pub"))
        out = self.verify(ev, "--pubkey", pub, expect=EXIT_VERIFY)
        self.assertIn("problem:     runs/b/run-1/big.bin: not listed in SHA256",
                      self.lines(out, "problem"))
        self.assertEqual(self.lines(out, "unsealed"), [])


if __name__ == "__main__":
    unittest.main()
