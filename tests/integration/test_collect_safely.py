"""What a run leaves is safe to collect: result files are read only when
they are regular files reached without a link (a FIFO or a link to
/etc/shadow matched by results.files is skipped with a note, never opened
or copied), one file counts once however often it is matched, the files a
run leaves in its directory are held to limits.max_files (the invocation
fails, the evidence is still sealed), and a metric pattern with nested
repetition ends within its CPU budget with a reason instead of stalling.

Timeouts on the abev calls are a safety net against a hang only: no test
asserts how long anything took."""
import json
import os
import signal
import subprocess
import sys
import time
import unittest

from common import HELPER, SRC, AbevTestCase, helper_plan

GEN = os.path.join(SRC, "tests", "helpers", "gen_results.py")
# Far longer than any of these runs takes, even under ASan on a busy machine.
HANG = 240


@unittest.skipUnless(HELPER and SRC, "the helper or the source tree is not known")
class CollectSafely(AbevTestCase):
    def template(self):
        """A valid TRX (5 results) and the counts it holds."""
        p = self.path("template.trx")
        out = subprocess.run([sys.executable, GEN, "trx", p, "--results", "5"], check=True,
                             capture_output=True, text=True).stdout
        return p, json.loads(out)

    def plan(self, script, **extra):
        """One variant, one run, whose command is a shell script. The generated
        result files hold failing tests on purpose (their counts are what is
        checked): known_failures lets them fail."""
        if "results" in extra:
            extra["results"] = {"known_failures": ["*"], **extra["results"]}
        p = helper_plan([("a", [])], **extra)
        p["variants"][0]["command"] = ["sh", "-c", script]
        return p

    def evidence_files(self):
        found = []
        for root, _, files in os.walk(self.path("ev")):
            found += [os.path.relpath(os.path.join(root, f), self.path("ev")) for f in files]
        return found

    def test_fifo_and_symlinks_outside_the_run_are_skipped_not_opened(self):
        tmpl, counts = self.template()
        out = self.path("outside")
        os.mkdir(out)
        os.mkfifo(os.path.join(out, "pipe.trx"))
        os.symlink("/etc/shadow", os.path.join(out, "shadow.trx"))
        os.symlink(tmpl, os.path.join(out, "link.trx"))
        plan = self.plan(f"cp '{tmpl}' '{out}/real.trx'", results={"files": out + "/*.trx"})
        cp, res = self.run_plan(plan, 0, timeout=HANG)
        self.assertIn("sealed:", cp.stdout)
        self.assertNotIn("sealed:   NO", cp.stdout)
        inv = res["invocations"][0]
        self.assertEqual(inv["status"], "ok", inv.get("reason"))
        # Only the regular file was read, and only it was copied in.
        self.assertEqual([r["path"] for r in inv["results"]], [inv["dir"] + "/results/real.trx"])
        self.assertEqual(inv["tests"]["total"], counts["total"])
        notes = "\n".join(res["notes"])
        self.assertIn(f"skipped '{out}/pipe.trx': a FIFO, not a regular file (never opened)",
                      notes)
        self.assertIn(f"skipped '{out}/shadow.trx': a symlink to '/etc/shadow', not a regular "
                      "file", notes)
        self.assertIn(f"skipped '{out}/link.trx': a symlink to '{tmpl}'", notes)
        names = self.evidence_files()
        self.assertFalse([n for n in names if "shadow" in n or "pipe" in n or "link" in n],
                         names)

    def test_the_same_file_under_two_names_counts_once(self):
        tmpl, counts = self.template()
        plan = self.plan(f"cp '{tmpl}' \"$ABEV_RUN_DIR/a.trx\" && "
                         "ln \"$ABEV_RUN_DIR/a.trx\" \"$ABEV_RUN_DIR/b.trx\"",
                         results={"files": "{run_dir}/*.trx"})
        _, res = self.run_plan(plan, 0, timeout=HANG)
        inv = res["invocations"][0]
        self.assertEqual(inv["status"], "ok", inv.get("reason"))
        self.assertEqual(len(inv["results"]), 1)
        self.assertEqual(inv["tests"]["total"], counts["total"])
        notes = "\n".join(res["notes"])
        self.assertIn("b.trx' is the same file as '", notes)
        self.assertIn("counted once", notes)

    def test_abev_results_counts_a_file_named_twice_once(self):
        tmpl, counts = self.template()
        cp = self.abev("results", "--json", tmpl, tmpl, check=0, timeout=HANG)
        doc = json.loads(cp.stdout)
        self.assertEqual(len(doc["files"]), 1)
        self.assertEqual(doc["total"]["total"], counts["total"])
        self.assertIn(f"'{tmpl}' is the same file as '{tmpl}': counted once", cp.stderr)

    def test_too_many_files_fails_the_run_and_the_evidence_is_sealed(self):
        plan = self.plan("for i in 1 2 3 4 5 6 7 8 9 10 11 12; do "
                         "echo $i > \"$ABEV_RUN_DIR/f$i\"; done",
                         limits={"max_files": 10})
        cp, res = self.run_plan(plan, 1, timeout=HANG)
        self.assertEqual(res["status"], "failed")
        self.assertNotIn("sealed:   NO", cp.stdout)
        self.assertTrue(os.path.exists(self.path("ev", "SHA256")))
        inv = res["invocations"][0]
        self.assertEqual(inv["status"], "failed")
        self.assertEqual(inv["reason"], "left 12 entries in its directory, more than "
                                        "limits.max_files of 10")
        notes = "\n".join(res["notes"])
        self.assertIn(f"{inv['dir']}: left 12 entries (files and directories), more than "
                      "limits.max_files of 10: the 2 "
                      "past the first 10 in name order were removed", notes)
        left = sorted(n for n in os.listdir(self.path("ev", inv["dir"])) if n.startswith("f"))
        self.assertEqual(left, sorted(f"f{i}" for i in (1, 10, 11, 12, 2, 3, 4, 5, 6, 7)))
        with open(self.path("ev", "SHA256")) as f:
            manifest = f.read()
        self.assertIn(f"({inv['dir']}/f12)", manifest)
        self.assertNotIn(f"({inv['dir']}/f8)", manifest)

    def test_more_than_100000_files_in_all_are_kept_and_sealed(self):
        # Two runs of 60,000 files each: an evidence directory held 100,000
        # files at most, so the second run was cut to the room left and
        # failed; it now holds a million (a run of 200,000 invocations).
        script = ("import os\nd = os.environ['ABEV_RUN_DIR']\n"
                  "for i in range(60000):\n    open(os.path.join(d, 'f%05d' % i), 'w').close()\n")
        plan = helper_plan([("a", []), ("b", [])], limits={"max_files": 100000})
        for v in plan["variants"]:
            v["command"] = [sys.executable, "-c", script]
        cp, res = self.run_plan(plan, 0, timeout=HANG)
        self.assertEqual(res["status"], "completed", res["notes"])
        self.assertEqual([i["status"] for i in res["invocations"]], ["ok", "ok"])
        with open(self.path("ev", "SHA256")) as f:
            listed = sum(1 for _ in f)
        self.assertEqual(listed, len(self.evidence_files()) - 1)
        self.assertGreater(listed, 120000)
        v = self.abev("verify", self.path("ev"))
        self.assertEqual(v.returncode, 7, v.stdout)

    def test_too_many_files_of_an_interrupted_run_are_held_to_the_limit(self):
        # Interrupted mid-run, the invocation is not judged, but what it left
        # is still held to limits.max_files, so that the evidence is sealed.
        plan = self.plan("for i in 1 2 3 4 5 6 7 8 9 10 11 12; do "
                         "echo $i > \"$ABEV_RUN_DIR/f$i\"; done; "
                         "echo > \"$ABEV_RUN_DIR/ready\"; exec sleep 600",
                         limits={"max_files": 5}, timeout=HANG)
        proc = subprocess.Popen([os.environ["ABEV"], "run", self.write_plan(plan), "--out",
                                 self.path("ev"), "--unsigned"], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)
        try:
            ready = self.path("ev", "runs", "a", "run-1", "ready")
            for _ in range(HANG * 50):
                if os.path.exists(ready) or proc.poll() is not None:
                    break
                time.sleep(0.02)
            proc.send_signal(signal.SIGTERM)
            out, err = proc.communicate(timeout=HANG)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
        self.assertEqual(proc.returncode, 128 + signal.SIGTERM, out + err)
        res = self.load("ev", "result.json")
        self.assertEqual(res["status"], "interrupted")
        inv = res["invocations"][0]
        self.assertEqual(inv["status"], "interrupted")
        self.assertIn("left 13 entries in its directory, more than limits.max_files of 5",
                      inv["reason"])
        self.assertIn(f"{inv['dir']}: left 13 entries (files and directories), more than "
                      "limits.max_files of 5",
                      "\n".join(res["notes"]))
        left = [n for n in os.listdir(self.path("ev", inv["dir"]))
                if n not in ("test.log", "stderr.log")]
        self.assertEqual(len(left), 5, left)
        self.assertTrue(os.path.exists(self.path("ev", "SHA256")))
        # Every listed file is there and matches (stock tools: abev verify needs a key).
        cp = subprocess.run(["sha256sum", "--check", "--strict", "--quiet", "SHA256"],
                            cwd=self.path("ev"), capture_output=True, text=True, timeout=HANG)
        self.assertEqual(cp.returncode, 0, cp.stdout + cp.stderr)

    def test_catastrophic_pattern_ends_with_the_reason(self):
        # 1 MiB of 'a' and no 'b': (a|a)* over it takes glibc minutes in one call.
        plan = self.plan("head -c 1048576 /dev/zero | tr '\\000' a",
                         metrics=[{"name": "slow", "source": "stdout", "unit": "ms",
                                   "pattern": "(a|a)*b=([0-9]+)"}],
                         limits={"pattern_cpu_seconds": 0.5})
        _, res = self.run_plan(plan, 1, timeout=HANG)
        inv = res["invocations"][0]
        self.assertIsNone(inv["metrics"]["slow"])
        g = [g for g in inv["guards"] if g["guard"] == "metrics"][0]
        self.assertEqual(g["verdict"], "fail")
        self.assertIn("'slow': test.log: matching stopped at byte ", g["reason"])
        self.assertIn("the pattern used up its 0.5 s of CPU time (limits.pattern_cpu_seconds)",
                      g["reason"])
        self.assertEqual(inv["status"], "failed")
        self.assertIn("metrics guard failed", inv["reason"])

    def test_back_reference_is_refused_at_plan_load(self):
        plan = self.plan("true", metrics=[{"name": "br", "source": "stdout", "unit": "ms",
                                           "pattern": "(a*)\\1=([0-9]+)"}])
        cp = self.abev("run", self.write_plan(plan), "--out", self.path("ev"), timeout=HANG)
        self.assertNotEqual(cp.returncode, 0)
        self.assertIn("metrics[0].pattern: '(a*)\\\\1=([0-9]+)': back-references", cp.stderr)


if __name__ == "__main__":
    unittest.main()
