"""The lock directory that abev runs on one host share (abev(1), OTHER RUNS).
Every local user can write in it, so anything may stand there: a FIFO named
"events" hung every run, and a link or a directory others can tamper with was
used as it came. Each test plants something in a private ABEV_LOCK_DIR; the
run must finish (within the timeout), and say in a warning and in result.json's
notes what it did not use."""
import fcntl
import os
import shutil
import subprocess
import sys

from common import AbevTestCase, OtherUser


class LockDirTest(AbevTestCase):
    def bench(self, lock):
        """A short bench with ABEV_LOCK_DIR=lock; returns (cp, the run's notes)."""
        out = self.path("ev")
        cp = self.abev("bench", "true", "true", "-r", "1", "--out", out, "--quiet",
                       "--unsigned", "--max-cpu-wait-pct", "100", timeout=60,
                       env={"ABEV_LOCK_DIR": lock}, check=0)
        return cp, self.load("ev", "result.json")["notes"]

    def lock(self, mode=0o1777):
        d = self.path("lock")
        os.mkdir(d)
        os.chmod(d, mode)
        return d

    def assert_said(self, cp, notes, text):
        self.assertTrue(any(text in n for n in notes), notes)
        self.assertIn("abev: warning: ", cp.stderr)
        self.assertIn(text, cp.stderr)

    def test_fifo_named_events_does_not_hang_a_run(self):
        d = self.lock()
        os.mkfifo(os.path.join(d, "events"))
        cp, notes = self.bench(d)
        self.assert_said(cp, notes, f"'{d}/events' is not a regular file")

    def test_symlink_named_events_is_not_followed(self):
        d = self.lock()
        target = self.path("target")
        with open(target, "w", encoding="utf-8") as f:
            f.write("keep\n")
        os.symlink(target, os.path.join(d, "events"))
        cp, notes = self.bench(d)
        self.assert_said(cp, notes, f"'{d}/events' is a symbolic link: not followed")
        with open(target, encoding="utf-8") as f:
            self.assertEqual(f.read(), "keep\n")

    def test_hard_link_named_events_is_not_written(self):
        # Issue 29 §3: a hard link to another file planted as "events" was
        # truncated and made 0666 by the next run, setuid bits and all.
        d = self.lock()
        victim = self.path("victim")
        with open(victim, "w", encoding="utf-8") as f:
            f.write("setuid program\n")
        os.chmod(victim, 0o4755)
        os.link(victim, os.path.join(d, "events"))
        cp, notes = self.bench(d)
        self.assert_said(cp, notes, f"'{d}/events' has 2 names (a hard link")
        st = os.stat(victim)
        self.assertEqual(st.st_mode & 0o7777, 0o4755)
        self.assertEqual(st.st_nlink, 2)
        with open(victim, encoding="utf-8") as f:
            self.assertEqual(f.read(), "setuid program\n")

    def test_an_existing_events_file_keeps_its_mode(self):
        # abev makes "events" 0666 when it creates it (every user's runs
        # append), and never changes the mode of one it finds.
        d = self.lock()
        ev = os.path.join(d, "events")
        with open(ev, "w", encoding="utf-8") as f:
            f.write("")
        os.chmod(ev, 0o600)
        self.bench(d)
        self.assertEqual(os.stat(ev).st_mode & 0o7777, 0o600)
        os.unlink(ev)
        self.bench_again(d)
        self.assertEqual(os.stat(ev).st_mode & 0o7777, 0o666)

    def bench_again(self, lock):
        """bench() into a second evidence directory."""
        return self.abev("bench", "true", "true", "-r", "1", "--out", self.path("ev2"),
                         "--quiet", "--unsigned", "--max-cpu-wait-pct", "100", timeout=60,
                         env={"ABEV_LOCK_DIR": lock}, check=0)

    def test_a_peers_evidence_path_is_shown_escaped(self):
        # Issue 29 §9: "<pid>.run" is any local user's to write; the evidence
        # path read from it went to the terminal raw (a title-setting escape).
        d = self.lock()
        evil = "/ev/\x1b]0;owned\x07x"
        with open(os.path.join(d, f"{os.getpid()}.run"), "w", encoding="utf-8") as f:
            fcntl.flock(f, fcntl.LOCK_EX)
            f.write("%20d R %s\n" % (1, evil))
            f.flush()
            cp = self.abev("bench", "true", "true", "-r", "1", "--out", self.path("ev"),
                           "--unsigned", "--max-cpu-wait-pct", "100", "--wait-max", "1",
                           timeout=60, env={"ABEV_LOCK_DIR": d}, check=None)
        self.assertIn(f"waiting for another abev run on this host to finish (pid {os.getpid()}",
                      cp.stderr)
        self.assertNotIn("\x1b", cp.stderr)
        self.assertNotIn("\x07", cp.stderr)

    def test_symlink_as_lock_directory_is_not_used(self):
        target = self.lock()
        link = self.path("link")
        os.symlink(target, link)
        cp, notes = self.bench(link)
        self.assert_said(cp, notes, f"'{link}' is a symbolic link")
        self.assertEqual(os.listdir(target), [])

    def test_directory_others_can_write_without_sticky_bit_is_not_used(self):
        d = self.lock(0o777)
        cp, notes = self.bench(d)
        self.assert_said(cp, notes, "lets others write in it without the sticky bit")
        self.assertEqual(os.listdir(d), [])

    def test_planted_run_files_are_neither_followed_nor_waited_on(self):
        # A FIFO and a link under the names of other runs' files are skipped: not
        # read (a FIFO would block), not followed, and not taken for a run.
        d = self.lock()
        target = self.path("target")
        with open(target, "w", encoding="utf-8") as f:
            f.write("keep\n")
        os.mkfifo(os.path.join(d, "999999.run"))
        os.symlink(target, os.path.join(d, "999998.run"))
        cp, notes = self.bench(d)
        self.assertFalse([n for n in notes if "abev run" in n], notes)
        self.assertTrue(os.path.exists(target))
        self.assertTrue(os.path.islink(os.path.join(d, "999998.run")))


# Holds an exclusive lock on "<its pid>.run" in argv[1], written as a running
# abev would write it, until killed: a fake peer, whoever runs it.
FAKE_PEER = r'''
import fcntl, os, sys, time
with open(os.path.join(sys.argv[1], "%d.run" % os.getpid()), "w") as f:
    fcntl.flock(f, fcntl.LOCK_EX)
    f.write("%20d R /fake/evidence\n" % 1)
    f.flush()
    print("ready", flush=True)
    time.sleep(600)
'''


class ForeignPeers(OtherUser, AbevTestCase):
    """Issue 40 §5: the lock directory is every user's to write; one user
    could stall every other user's abev with a locked fake <pid>.run."""

    def setUp(self):
        self.set_up_as_root_with_nobody("another user's file needs root to plant")

    def python_for_user(self):
        """A Python the user can run: the suite's own may sit where only root can
        enter (a pyenv in root's 0700 home)."""
        for python in (sys.executable, shutil.which("python3", path="/usr/bin:/bin")):
            try:
                subprocess.run([python, "-c", ""], check=True, timeout=60, cwd=self.tmp,
                               stdin=subprocess.DEVNULL, preexec_fn=self.become_user)
                return python
            except (OSError, TypeError, subprocess.CalledProcessError):
                continue
        self.skipTest(f"user '{self.user.pw_name}' can run no Python here")

    def fake_peer(self, d, as_user):
        python = self.python_for_user() if as_user else sys.executable
        p = subprocess.Popen([python, "-c", FAKE_PEER, d], stdout=subprocess.PIPE,
                             text=True, preexec_fn=self.become_user if as_user else None)
        self.addCleanup(lambda: (p.kill(), p.wait()))
        self.assertEqual(p.stdout.readline().strip(), "ready")
        return p

    def test_another_users_fake_peer_is_ignored_and_said(self):
        d = self.path("lock")
        os.mkdir(d)
        os.chmod(d, 0o1777)
        fake = self.fake_peer(d, as_user=True)
        cp = self.abev("bench", "true", "true", "-r", "1", "--out", self.path("ev"),
                       "--unsigned", "--max-cpu-wait-pct", "100", "--wait-max", "20",
                       timeout=120, env={"ABEV_LOCK_DIR": d}, check=0)
        self.assertNotIn("waiting for another abev run", cp.stderr)
        notes = self.load("ev", "result.json")["notes"]
        said = f"holds '{fake.pid}.run' of uid {self.user.pw_uid}, which is no abev run"
        self.assertTrue(any(said in n for n in notes), notes)
        self.assertIn(said, cp.stderr)
        self.assertFalse(any("abev waited" in n for n in notes), notes)

    def test_an_out_abev_cannot_make_fails_before_the_queue(self):
        # An --out that access() allows and mkdir refuses failed only after the wait.
        d = self.path("lock")
        os.mkdir(d)
        os.chmod(d, 0o1777)
        self.fake_peer(d, as_user=False)
        cp = self.abev("bench", "true", "true", "-r", "1", "--out", "/sys/abev-no-such-dir",
                       "--unsigned", "--wait-max", "20", timeout=120,
                       env={"ABEV_LOCK_DIR": d}, check=None)
        self.assertNotEqual(cp.returncode, 0)
        self.assertIn("cannot create '/sys/abev-no-such-dir'", cp.stderr)
        self.assertNotIn("waiting for another abev run", cp.stderr)
