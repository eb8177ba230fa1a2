"""The journal and the reserve: result.json is written when a run starts and
when it ends, each finished invocation is appended to invocations.jsonl in
between (what a killed run leaves is read back from it by `abev report`, and
`abev verify` says the evidence was never sealed), and a file system that
fills up during the run still leaves room to finish and seal the evidence,
which says that the disk was full."""
import json
import os
import resource
import signal
import subprocess
import time

import schemas
from common import ABEV, AbevTestCase, helper_plan, logs_made


class Journal(AbevTestCase):
    def start_killed_run(self, runs=200):
        """A run of `sleep` killed with SIGKILL once the journal holds three
        invocations; returns the evidence directory."""
        plan = helper_plan([("a", ["sleep", "20"]), ("b", ["sleep", "20"])], runs=runs)
        ev = self.path("ev")
        p = subprocess.Popen([ABEV, "run", self.write_plan(plan), "--out", ev, "--unsigned"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        journal = os.path.join(ev, "invocations.jsonl")
        try:
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                try:
                    with open(journal, "rb") as f:
                        if f.read().count(b"\n") >= 3:
                            break
                except OSError:
                    pass
                time.sleep(0.01)
            p.send_signal(signal.SIGKILL)
        finally:
            p.wait()
        return ev

    def test_completed_run_has_every_invocation_and_no_journal(self):
        plan = helper_plan([("a", ["exit", "0"]), ("b", ["exit", "0"])], runs=3)
        _, res = self.run_plan(plan)
        self.assertEqual(res["status"], "completed")
        self.assertEqual([i["seq"] for i in res["invocations"]], list(range(1, 7)))
        self.assertEqual(res["executed"], 6)
        names = os.listdir(self.path("ev"))
        self.assertNotIn("invocations.jsonl", names)
        self.assertNotIn("abev-reserve", names)
        # The sealed evidence verifies (nothing of the journal was left out of it).
        self.abev("verify", self.path("ev"), check=7)

    def test_killed_run_leaves_the_journal_as_its_record(self):
        ev = self.start_killed_run()
        res = self.load("ev", "result.json")
        self.assertEqual(res["status"], "running")
        self.assertEqual(res["invocations"], [])
        with open(os.path.join(ev, "invocations.jsonl"), "rb") as f:
            data = f.read()
        lines = [json.loads(x) for x in data.split(b"\n")[:-1]]
        self.assertGreaterEqual(len(lines), 3)
        # Execution order, each the invocation's document; the line is its only record.
        self.assertEqual([x["seq"] for x in lines], list(range(1, len(lines) + 1)))
        for x in lines:
            self.assertEqual(x["schema"], "abev.invocation/1")
            self.assertEqual(sorted(os.listdir(os.path.join(ev, x["dir"]))), logs_made(x))
        # verify: never sealed, not "unsigned".
        cp = self.abev("verify", ev, check=4)
        self.assertIn("SHA256: missing: the evidence was never sealed (result.json status: "
                      "running)", cp.stdout)
        self.assertNotIn("unsigned", cp.stdout.replace("the evidence is unsigned (no "
                                                       "SHA256.sig)", ""))
        # report reads the journal: every journaled invocation, and a note that says so.
        cp = self.abev("report", ev, check=0)
        self.assertIn(f"the {len(lines)} below are read from invocations.jsonl", cp.stdout)
        for x in lines:
            self.assertIn(f"| {x['seq']} | {x['variant']} | run {x['round']} |", cp.stdout)
        # Neither report says the evidence is signed or listed in SHA256 (issue 29 §7):
        # it never was.
        with open(os.path.join(ev, "report.md"), encoding="utf-8") as f:
            written = f.read()
        for text in (cp.stdout, written):
            self.assertIn("**NOT SEALED.** abev had not finished", text)
            self.assertNotIn("**UNSIGNED.**", text)
            self.assertNotIn("`SHA256` lists every file", text)
        self.assertIn("its run did not finish (status running)",
                      self.abev("export", ev, "--format", "csv", check=2).stderr)

    def test_a_cut_last_line_is_left_out_with_a_note(self):
        ev = self.start_killed_run()
        journal = os.path.join(ev, "invocations.jsonl")
        with open(journal, "rb") as f:
            whole = f.read().count(b"\n")
        with open(journal, "ab") as f:
            f.write(b'{"schema":"abev.invocation/1","seq":')
        cp = self.abev("report", ev, check=0)
        self.assertIn(f"the {whole} below are read from invocations.jsonl", cp.stdout)
        self.assertIn("ends in 36 bytes without a line break", cp.stdout)

    def test_a_broken_journal_line_is_refused_with_its_line(self):
        ev = self.start_killed_run()
        self.validate_evidence_on_teardown = False
        journal = os.path.join(ev, "invocations.jsonl")
        with open(journal, "ab") as f:
            f.write(b'{"seq": "one"}\n')
        cp = self.abev("report", ev, check=2)
        self.assertIn("invocations.jsonl", cp.stderr)
        self.assertIn("seq", cp.stderr)


class StoppedJournal(AbevTestCase):
    """The file-size limit (ulimit -f) stops the journal part way through a run and
    cuts the final result.json short: no record is lost."""

    def test_records_past_the_journal_are_each_invocations_own(self):
        def limit():
            resource.setrlimit(resource.RLIMIT_FSIZE, (16 * 1024, 16 * 1024))
        plan = helper_plan([("a", ["exit", "0"])], runs=12)
        ev = self.path("ev")
        cp = subprocess.run([ABEV, "run", self.write_plan(plan), "--out", ev, "--unsigned"],
                            capture_output=True, text=True, timeout=300,
                            stdin=subprocess.DEVNULL, preexec_fn=limit)
        self.assertEqual(cp.returncode, 3, cp.stdout + cp.stderr)
        res = self.load("ev", "result.json")
        self.assertEqual(res["invocations"], [])
        self.assertEqual(res["executed"], 12)
        # The journal stays, with the records it took; its last line may be cut.
        with open(os.path.join(ev, "invocations.jsonl"), "rb") as f:
            journaled = [json.loads(x) for x in f.read().split(b"\n")[:-1]]
        self.assertTrue(0 < len(journaled) < 12, len(journaled))
        # Past it, each invocation's record is its own result.json; before it, none is.
        own = []
        for d in sorted(os.listdir(os.path.join(ev, "runs", "a"))):
            path = os.path.join(ev, "runs", "a", d, "result.json")
            if os.path.exists(path):
                own.append(self.load(path))
        for x in journaled:
            self.assertFalse(os.path.exists(os.path.join(ev, x["dir"], "result.json")), x["dir"])
        own.sort(key=lambda x: x["seq"])
        # Every invocation once, in execution order: nothing lost, nothing twice.
        self.assertEqual([x["seq"] for x in journaled + own], list(range(1, 13)))
        for x in own:
            self.assertEqual(x["schema"], "abev.invocation/1")
            self.assertEqual(x["status"], "ok")
        notes = "\n".join(res["notes"])
        self.assertIn(f"invocations.jsonl stops after {len(journaled)} invocation record(s)",
                      notes)
        self.assertIn(f"invocations.jsonl, kept in the evidence, holds the first "
                      f"{len(journaled)}, and each later one's own result.json", notes)
        # All of it sealed: the journal is listed with the bytes abev wrote.
        with open(os.path.join(ev, "SHA256"), encoding="utf-8") as f:
            self.assertIn("SHA256 (invocations.jsonl) = ", f.read())
        cp = subprocess.run(["sha256sum", "--check", "--strict", "--quiet", "SHA256"],
                            cwd=ev, capture_output=True, text=True, timeout=300)
        self.assertEqual(cp.returncode, 0, cp.stdout + cp.stderr)
        self.assertEqual(res["tampered"], [])
        # abev report reads the two together: every invocation, and notes that say where.
        cp = self.abev("report", ev, check=0)
        for x in journaled + own:
            self.assertIn(f"| {x['seq']} | a | run {x['round']} |", cp.stdout)
        self.assertIn(f"the {len(journaled)} below are read from invocations.jsonl", cp.stdout)
        self.assertIn(f"the {len(own)} after those are read from their directories' own "
                      "result.json", cp.stdout)


class DiskFull(AbevTestCase):
    """A child floods a 3 MiB file system with 5 MB of output."""

    def setUp(self):
        super().setUp()
        self.mnt = self.path("mnt")
        os.mkdir(self.mnt)
        cp = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", self.mnt],
                            capture_output=True, text=True)
        if cp.returncode != 0:
            self.skipTest(f"cannot mount a 3 MiB tmpfs here (needs root): "
                          f"{cp.stderr.strip()}")
        self.mounted = True

    def tearDown(self):
        if getattr(self, "mounted", False):
            subprocess.run(["umount", "-l", self.mnt], capture_output=True)
        super().tearDown()

    def test_evidence_is_finished_and_sealed_with_the_reason(self):
        key, pub = self.path("key.key"), self.path("key.pub")
        self.abev("keygen", "--out", self.path("key"), check=0)
        # The whole flood is kept, so that it fills the small disk.
        plan = helper_plan([("flood", ["flood", "5000000"])], runs=1,
                           limits={"log_keep_bytes": 0})
        ev = os.path.join(self.mnt, "ev")
        cp = self.abev("run", self.write_plan(plan), "--out", ev, "--key", key)
        self.assertEqual(cp.returncode, 3, cp.stdout + cp.stderr)
        self.assertIn("No space left on device", cp.stderr)
        with open(os.path.join(ev, "result.json"), encoding="utf-8") as f:
            res = json.load(f)
        self.assertEqual(res["status"], "failed")
        self.assertTrue(any(n.startswith("the disk is full") for n in res["notes"]),
                        res["notes"])
        self.assertEqual(len(res["invocations"]), 1)
        names = os.listdir(ev)
        self.assertIn("SHA256.sig", names)
        self.assertNotIn("abev-reserve", names)
        # Sealed as it is: intact, and a record of a failed run (exit 8, not 0).
        cp = self.abev("verify", ev, "--pubkey", pub, check=8)
        self.assertIn("seal:        intact: the signature is good", cp.stdout)
        self.assertIn("status:      failed\n", cp.stdout)
        # Issue 40 §4: failed for the disk, not for a change to abev's own runs/ that
        # never was (the run directory was not kept when its files could not be written).
        self.assertEqual(res["tampered"], [])
        self.assertIn("tampered:    none", cp.stdout)
        schemas.validate_evidence(self, ev)
        with open(os.path.join(ev, "report.md"), encoding="utf-8") as f:
            self.assertIn("the disk is full", f.read())
