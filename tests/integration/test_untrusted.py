"""The program under test is untrusted. A run that replaces its own run
directory, or the evidence directory, by a link to elsewhere makes abev
touch nothing there: abev reaches the evidence only through the
directories it created (no link followed). A run that rewrites a file abev
wrote, or adds one outside its own run directory, does not get it sealed as
abev's record: the evidence is failed and the notes name each file.

Each attack aims at a scratch directory holding files, links and a FIFO;
the test asserts it is byte for byte as it was. Timeouts on the abev calls
are a safety net against a hang only."""
import json
import os
import stat
import subprocess
import time
import unittest

from common import ABEV, HELPER, AbevTestCase, helper_plan

HANG = 240


def snapshot(root):
    """Everything under root, links not followed: type, mode, bytes or target."""
    seen = {}
    for dirpath, dirs, files in os.walk(root, followlinks=False):
        for name in dirs + files:
            p = os.path.join(dirpath, name)
            st = os.lstat(p)
            rel = os.path.relpath(p, root)
            if stat.S_ISLNK(st.st_mode):
                seen[rel] = ("link", os.readlink(p))
            elif stat.S_ISREG(st.st_mode):
                with open(p, "rb") as f:
                    seen[rel] = ("file", stat.S_IMODE(st.st_mode), f.read())
            elif stat.S_ISDIR(st.st_mode):
                seen[rel] = ("dir", stat.S_IMODE(st.st_mode))
            else:
                seen[rel] = ("other", stat.S_IFMT(st.st_mode))
    return seen


@unittest.skipUnless(HELPER, "the helper is not known")
class Untrusted(AbevTestCase):
    def setUp(self):
        super().setUp()
        # What a hostile run aims abev at: files, a link, a FIFO, an empty directory.
        self.target = self.path("target")
        os.makedirs(os.path.join(self.target, "sub", "empty"))
        for i in range(12):
            with open(os.path.join(self.target, f"f{i:02d}.txt"), "w") as f:
                f.write(f"precious {i}\n")
        with open(os.path.join(self.target, "bad)name"), "w") as f:
            f.write("odd name\n")
        os.symlink("/bin/sh", os.path.join(self.target, "cc"))
        os.mkfifo(os.path.join(self.target, "pipe"))
        self.before = snapshot(self.target)

    def plan(self, scripts, **extra):
        """Variants a, b, ... in that order, each a shell script."""
        p = helper_plan([(chr(ord("a") + i), []) for i in range(len(scripts))],
                        order="alternate", **extra)
        for v, script in zip(p["variants"], scripts):
            v["command"] = ["sh", "-c", script]
        return p

    def assert_target_untouched(self):
        self.assertEqual(snapshot(self.target), self.before,
                         "abev changed files outside the evidence")

    def assert_verifies(self, code=7):
        """The unsigned evidence matches its manifest: 7 when it records a
        clean run, 8 when it records one that failed or changed abev's files."""
        cp = self.abev("verify", self.path("ev"))
        self.assertEqual(cp.returncode, code, cp.stdout + cp.stderr)
        self.assertIn("seal:        intact", cp.stdout)
        return cp.stdout

    def test_run_directory_swapped_for_a_link(self):
        # The run moves its directory away and leaves a link to the target in
        # its place; limits.max_files would trim, tidying would remove links
        # and rename odd names, and abev would write its records there.
        script = ('mv "$ABEV_RUN_DIR" "$ABEV_RUN_DIR.moved" && '
                  f'ln -s "{self.target}" "$ABEV_RUN_DIR"')
        cp, res = self.run_plan(self.plan([script, "true"], limits={"max_files": 3}), 1,
                                timeout=HANG)
        self.assert_target_untouched()
        inv = res["invocations"][0]
        self.assertEqual(inv["status"], "failed")
        self.assertIn("replaced it by a symbolic link to", inv["reason"])
        self.assertTrue(any("runs/a/run-1: the run replaced it by a symbolic link" in n
                            for n in res["notes"]), res["notes"])
        # The record, in result.json, names the directory; the link is not left there
        # (the directory abev made again holds nothing, and goes with the empty ones).
        self.assertEqual(inv["dir"], "runs/a/run-1")
        self.assertFalse(os.path.islink(self.path("ev", "runs", "a", "run-1")))
        self.assertEqual(res["invocations"][1]["status"], "ok")

    def test_run_directory_deleted(self):
        cp, res = self.run_plan(self.plan(['rm -rf "$ABEV_RUN_DIR"']), 1, timeout=HANG)
        inv = res["invocations"][0]
        self.assertEqual(inv["status"], "failed")
        self.assertIn("the run deleted it during the run", inv["reason"])
        # The record is result.json's, and names the directory the run deleted.
        self.assertEqual(inv["dir"], "runs/a/run-1")
        self.assertEqual([n for n in res["tampered"] if n.startswith("runs/a/run-1: ")],
                         [n for n in res["notes"] if "the run deleted it" in n])
        out = self.assert_verifies(8)
        self.assertIn("status:      failed\n", out)
        self.assertIn("tampered:    runs/a/run-1: the run deleted it during the run", out)

    def test_evidence_root_swapped_for_a_link(self):
        script = ('root=$(dirname "$(dirname "$(dirname "$ABEV_RUN_DIR")")") && '
                  f'mv "$root" "$root.moved" && ln -s "{self.target}" "$root"')
        cp = self.abev("run", self.write_plan(self.plan([script, "true"])), "--out",
                       self.path("ev"), "--unsigned", timeout=HANG)
        self.assertEqual(cp.returncode, 1, cp.stdout + cp.stderr)
        self.assert_target_untouched()
        self.assertTrue(os.path.islink(self.path("ev")))
        with open(self.path("ev.moved", "result.json")) as f:
            res = json.load(f)
        self.assertEqual(res["status"], "failed")
        self.assertTrue(any("was moved or replaced during the run" in n for n in res["notes"]),
                        res["notes"])
        self.assertTrue(os.path.isfile(self.path("ev.moved", "SHA256")))

    def test_output_read_through_a_replaced_evidence_root_is_abevs_own(self):
        # The run replaces the evidence root by a link to a tree where its
        # own run directory's test.log says something else: the metric is
        # read from the log abev wrote, beneath the directory it made.
        forged = os.path.join(self.target, "runs", "a", "run-1")
        os.makedirs(forged)
        with open(os.path.join(forged, "test.log"), "w") as f:
            f.write("score=999\n")
        self.before = snapshot(self.target)
        script = ('echo score=1 && root=$(dirname "$(dirname "$(dirname "$ABEV_RUN_DIR")")") && '
                  f'mv "$root" "$root.moved" && ln -s "{self.target}" "$root"')
        p = self.plan([script, "echo score=2"])
        p["metrics"] = [{"name": "score", "source": "stdout", "unit": "ms",
                         "pattern": "score=([0-9]+)"}]
        cp = self.abev("run", self.write_plan(p), "--out", self.path("ev"), "--unsigned",
                       timeout=HANG)
        self.assertEqual(cp.returncode, 1, cp.stdout + cp.stderr)
        self.assert_target_untouched()
        with open(self.path("ev.moved", "result.json")) as f:
            res = json.load(f)
        self.assertEqual(res["invocations"][0]["metrics"]["score"], 1, res["invocations"][0])

    def test_future_run_directory_planted_as_a_link(self):
        # Run a/run-1 plants a link where b/run-1 will be made.
        script = (f'mkdir -p "$ABEV_RUN_DIR/../../b" && '
                  f'ln -s "{self.target}" "$ABEV_RUN_DIR/../../b/run-1"')
        cp, res = self.run_plan(self.plan([script, "true"]), 1, timeout=HANG)
        self.assert_target_untouched()
        self.assertEqual(res["status"], "failed")
        self.assertTrue(any("runs/b/run-1" in n and "planted" in n for n in res["notes"]),
                        res["notes"])

    def test_abevs_files_rewritten_and_a_file_added_are_not_sealed_as_abevs(self):
        # The forged plan.json is no plan: the evidence is failed on purpose.
        self.validate_evidence_on_teardown = False
        script = ('root=$(dirname "$(dirname "$(dirname "$ABEV_RUN_DIR")")") && '
                  'printf "[]" > "$root/plan.json" && echo evil > "$root/evil.txt" && '
                  'echo forged >> "$root/invocations.jsonl"')
        cp, res = self.run_plan(self.plan(["true", script]), 1, timeout=HANG)
        self.assertEqual(res["status"], "failed")
        notes = "\n".join(res["notes"])
        self.assertIn("plan.json: changed after abev wrote it", notes)
        self.assertIn("evil.txt: a regular file abev did not write appeared", notes)
        # The journal is abev's record while the run goes on: held to abev's bytes.
        self.assertIn("invocations.jsonl: changed after abev wrote it", notes)
        self.assertIn("the evidence is failed", notes)
        for inv in res["invocations"]:
            self.assertEqual(inv["status"], "ok", inv.get("reason"))
        self.assertIn("status:   failed", cp.stdout)
        with open(self.path("ev", "report.md")) as f:
            self.assertIn("evil.txt", f.read())

    def test_verify_says_what_sealed_evidence_of_a_forging_run_records(self):
        # Issue 29 §13: the seal holds (abev sealed what it found, saying so), so
        # verify used to end with "verified" and exit 0. It also says what the
        # sealed record says of itself: failed, and each change to abev's files.
        self.validate_evidence_on_teardown = False
        self.abev("keygen", "--out", self.path("k"), check=0)
        script = ('root=$(dirname "$(dirname "$(dirname "$ABEV_RUN_DIR")")") && '
                  'printf "[]" > "$root/plan.json" && echo evil > "$root/evil.txt" && '
                  'echo forged >> "$root/invocations.jsonl"')
        bundle = self.path("ev.tar.zst")
        cp, res = self.run_plan(self.plan(["true", script]), 1, "--key", self.path("k.key"),
                                "--bundle", bundle, timeout=HANG)
        self.assertEqual(res["status"], "failed")
        # Each change is noted, and the note that sums them up; all of them are notes too.
        self.assertTrue(res["tampered"][-1].startswith("the evidence is failed: "),
                        res["tampered"])
        self.assertTrue(set(res["tampered"]) <= set(res["notes"]), res["tampered"])
        for path, key in ((self.path("ev"), ["--pubkey", self.path("k.pub")]),
                          (bundle, ["--pubkey", self.path("k.pub")]),
                          (self.path("ev"), [])):
            with self.subTest(path=os.path.basename(path), key=bool(key)):
                v = self.abev("verify", path, *key)
                self.assertEqual(v.returncode, 8, v.stdout + v.stderr)
                lines = v.stdout.splitlines()
                self.assertNotIn("problem:", v.stdout)
                self.assertIn("seal:        intact: " + ("the signature is good" if key else
                                                        "every file matches the manifest"),
                              v.stdout)
                self.assertIn("status:      failed", lines)
                tampered = [l[len("tampered:    "):] for l in lines
                            if l.startswith("tampered:    ")]
                self.assertEqual(tampered, res["tampered"])
                self.assertTrue(any(t.startswith("plan.json: changed after abev wrote it")
                                    for t in tampered), tampered)
                self.assertTrue(any(t.startswith("evil.txt: a regular file abev did not write")
                                    for t in tampered), tampered)
                self.assertTrue(any(t.startswith("invocations.jsonl: changed after abev "
                                                 "wrote it") for t in tampered), tampered)
                self.assertEqual([l.split(":")[1].strip() for l in lines
                                  if l.startswith("verdict:")], ["NOT CLEAN"])
                self.assertNotIn("verified", v.stdout)

    def test_a_run_directory_nested_too_deep_is_trimmed_and_sealed(self):
        # 70 levels below the run directory, 73 below the evidence root: deeper than
        # a manifest holds (64). What is too deep goes, with a note; the rest is sealed.
        script = ('d="$ABEV_RUN_DIR"; i=0; while [ $i -lt 70 ]; do d="$d/d$i"; i=$((i+1)); '
                  'done; mkdir -p "$d" && echo deep > "$d/file" && echo top > "$ABEV_RUN_DIR/top"')
        cp, res = self.run_plan(self.plan([script]), 0, timeout=HANG)
        self.assertEqual(res["status"], "completed", res["notes"])
        self.assertTrue(any("nested deeper than 64 directories" in n and "removed with the 1 "
                            "file(s) and 8 director(ies) under it" in n for n in res["notes"]),
                        res["notes"])
        self.assertTrue(os.path.isfile(self.path("ev", "runs", "a", "run-1", "top")))
        self.assert_verifies()

    def test_a_directory_moved_out_mid_trim_leads_nothing_outside_away(self):
        # Issue 29 §2: while abev removes a tree nested too deep, a process outside
        # abev's tree (this test) moves one of its directories into the target. abev
        # climbed back through "..", reached the target and emptied it; now each ".."
        # is checked against the level it should be, and the removal stops there.
        n = 20000
        chain = "/".join(f"d{i}" for i in range(70))
        script = ('python3 -c "import os,sys; d=os.path.join(os.environ[\'ABEV_RUN_DIR\'], '
                  f'\'{chain}\'); os.makedirs(d); '
                  f'[open(os.path.join(d, \'f%d\' % i), \'w\').close() for i in range({n})]; '
                  'open(os.path.join(os.environ[\'ABEV_RUN_DIR\'], \'done\'), \'w\').close()"')
        plan = self.plan([script])
        run_dir = self.path("ev", "runs", "a", "run-1")
        deep = os.path.join(run_dir, chain)
        moved = os.path.join(run_dir, "/".join(f"d{i}" for i in range(64)))
        p = subprocess.Popen([ABEV, "run", self.write_plan(plan), "--out", self.path("ev"),
                              "--unsigned"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
        raced = False
        try:
            deadline = time.monotonic() + HANG
            while time.monotonic() < deadline and not os.path.exists(
                    os.path.join(run_dir, "done")):
                time.sleep(0.01)
            # abev is removing the deepest files: move a directory above them away.
            while time.monotonic() < deadline and p.poll() is None:
                try:
                    left = len(os.listdir(deep))
                except OSError:
                    break
                if 0 < left < n:
                    # Under its own name, so that a climb through ".." finds it there.
                    os.rename(moved, os.path.join(self.target, "d63"))
                    raced = True
                    break
                time.sleep(0.002)
            out, err = p.communicate(timeout=HANG)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
        if not raced:
            self.skipTest("abev removed the tree before the test could move a directory of it")
        after = snapshot(self.target)
        after = {k: v for k, v in after.items() if k != "d63" and not k.startswith("d63/")}
        self.assertEqual(after, self.before, "abev removed files outside the run's tree")
        self.assertIn("was moved out of the run's tree while abev removed it", err)

    def test_a_run_that_writes_only_its_own_directory_is_completed(self):
        script = ('mkdir -p "$ABEV_RUN_DIR/out/deep" && echo data > "$ABEV_RUN_DIR/out/deep/x" '
                  '&& ln -s /etc/passwd "$ABEV_RUN_DIR/link"')
        cp, res = self.run_plan(self.plan([script, script]), 0, timeout=HANG)
        self.assertEqual(res["status"], "completed", res["notes"])
        self.assertEqual(res["tampered"], [])
        self.assertIn("tampered:    none", self.assert_verifies())

    def test_hard_links_at_abevs_names_are_not_written_through(self):
        # Issue 29 §1: the run plants hard links to a setuid victim at every
        # name abev used to write beside a file before renaming it over
        # (".NAME.tmp.PID", PID abev's: the run's parent), in its own
        # directory and at the evidence root. abev opened them O_TRUNC and
        # overwrote the victim with its record (its setuid bit cleared).
        victim = os.path.join(self.target, "victim")
        with open(victim, "wb") as f:
            f.write(b"precious setuid program\n")
        os.chmod(victim, 0o4755)
        self.before = snapshot(self.target)
        names = ["result.json", "report.md", "metadata.json",
                 "SHA256", "plan.json", "result.json.sealing", "report.md.sealing"]
        plant = " ".join(f'ln "{victim}" "$d/.{n}.tmp.$PPID" 2>/dev/null;' for n in names)
        script = (f'for d in "$ABEV_RUN_DIR" "$ABEV_RUN_DIR/../../.."; do {plant} done; '
                  'echo planted')
        cp, res = self.run_plan(self.plan([script, "true"]), None, timeout=HANG)
        self.assert_target_untouched()
        st = os.stat(victim)
        self.assertEqual(stat.S_IMODE(st.st_mode), 0o4755)
        # The run did plant them (what is left of them is not abev's record, and
        # no link to the victim is left in the evidence).
        planted = [n for n in os.listdir(self.path("ev")) if n.startswith(".result.json.tmp.")]
        self.assertTrue(planted, "the run could not plant its links")
        self.assertEqual(st.st_nlink, 1)
        self.assertTrue(any("a regular file abev did not write appeared" in n
                            for n in res["notes"]), res["notes"])
        self.assertEqual(res["invocations"][0]["status"], "ok", res["invocations"][0])


if __name__ == "__main__":
    unittest.main()
