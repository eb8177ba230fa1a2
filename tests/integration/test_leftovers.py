"""What a run leaves in its directory is held to what can be sealed, before a
byte of it is hashed (issue 29 §5, §8, §12): modes abev can read (a run that
chmods 000 its files does not make the evidence unsealable), no setuid or
world-writable modes kept, names planted where abev gives a hard-linked file
a name of its own do not stop it, a hard link to a sparse file is copied with
its holes, limits.max_run_bytes bounds the bytes by apparent size and
limits.max_files every entry, directories too, the empty directories a run
leaves go at its end, a log the run grew itself is cut back, and a signal while
abev hashes stops it.

Timeouts on the abev calls are a safety net against a hang only."""
import json
import os
import pwd
import shutil
import signal
import stat
import struct
import subprocess
import sys
import time
import unittest

from common import ABEV, HELPER, AbevTestCase, helper_plan, recorded

HANG = 240
GiB = 1 << 30
TiB = 1 << 40


def sparse_supported(path):
    """Whether the file system at path keeps holes (a truncated file takes no blocks)."""
    p = os.path.join(path, ".sparse-probe")
    with open(p, "wb") as f:
        f.truncate(64 << 20)
    blocks = os.stat(p).st_blocks
    os.unlink(p)
    return blocks == 0


@unittest.skipUnless(HELPER, "the helper is not known")
class Leftovers(AbevTestCase):
    def plan(self, script, **extra):
        p = helper_plan([("a", [])], **extra)
        p["variants"][0]["command"] = ["sh", "-c", script]
        return p

    def run_dir(self, *parts):
        return self.path("ev", "runs", "a", "run-1", *parts)

    def assert_verifies(self, clean=True):
        """The seal holds (unsigned): exit 7 for a clean record, 8 for one that says
        it is not (a failed run), with the seal intact either way."""
        cp = self.abev("verify", self.path("ev"))
        self.assertEqual(cp.returncode, 7 if clean else 8, cp.stdout + cp.stderr)
        self.assertRegex(cp.stdout, r"seal: +intact")

    def unprivileged(self):
        """(abev, work, preexec): an abev an unprivileged user runs, a folder it
        owns, and the preexec_fn that becomes it. As root that is 'nobody' (root
        reads a file whatever its mode, which is what this is about); otherwise
        the user the tests run as. Skips when nobody cannot be used here."""
        work = self.path("work")
        os.mkdir(work)
        if os.geteuid() != 0:
            return ABEV, work, None
        try:
            user = pwd.getpwnam("nobody")
        except KeyError:
            self.skipTest("no user 'nobody' on this machine")
        os.chmod(self.tmp, 0o755)
        bindir = self.path("bin")
        os.mkdir(bindir, 0o755)
        abev = shutil.copy(ABEV, bindir)
        os.chmod(abev, 0o755)
        os.chown(work, user.pw_uid, user.pw_gid)

        def become():
            os.setgroups([])
            os.setgid(user.pw_gid)
            os.setuid(user.pw_uid)
        try:
            subprocess.run([abev, "--version"], check=True, timeout=60, cwd=work,
                           capture_output=True, preexec_fn=become)
        except (OSError, subprocess.CalledProcessError) as e:
            self.skipTest(f"user 'nobody' cannot run abev copied to {abev} ({e}): the "
                          f"directories above {self.tmp} (TMPDIR) must let others through")
        return abev, work, become

    def test_files_and_directories_made_unreadable_are_taken_back_and_sealed(self):
        # §12: a file and a directory of the run's own made 000 (and a directory
        # holding a file made unreadable) left the evidence unsealable: exit 3.
        # abev runs unprivileged: root reads whatever the mode.
        abev, work, become = self.unprivileged()
        script = ('cd "$ABEV_RUN_DIR" && echo secret > closed && chmod 000 closed && '
                  'mkdir -p shut/inner && echo x > shut/inner/f && chmod 000 shut/inner/f '
                  'shut/inner shut && echo done')
        plan = os.path.join(work, "plan.json")
        with open(plan, "w") as f:
            json.dump(self.plan(script), f)
        os.chmod(plan, 0o644)
        ev = os.path.join(work, "ev")
        cp = subprocess.run([abev, "run", plan, "--out", ev, "--unsigned"], cwd=work,
                            capture_output=True, text=True, timeout=HANG, preexec_fn=become)
        self.assertEqual(cp.returncode, 0, cp.stdout + cp.stderr)
        with open(os.path.join(ev, "result.json")) as f:
            res = json.load(f)
        self.assertEqual(res["status"], "completed", res["notes"])
        self.assertTrue(any("could not read, enter or change" in n for n in res["notes"]),
                        res["notes"])
        run = os.path.join(ev, "runs", "a", "run-1")
        with open(os.path.join(run, "closed")) as f:
            self.assertEqual(f.read(), "secret\n")
        self.assertEqual(stat.S_IMODE(os.stat(os.path.join(run, "shut", "inner", "f")).st_mode),
                         0o600)
        cp = subprocess.run([abev, "verify", ev], capture_output=True, text=True, timeout=HANG,
                            preexec_fn=become)
        self.assertEqual(cp.returncode, 7, cp.stdout + cp.stderr)

    def test_setuid_and_world_writable_modes_are_not_kept(self):
        # Low list: a run's setuid, setgid, sticky and group/other-writable modes were
        # kept in the evidence (and in a bundle made of it).
        script = ('cd "$ABEV_RUN_DIR" && echo x > suid && chmod 4777 suid && '
                  'mkdir open && chmod 1777 open && echo y > open/g && chmod 2775 open/g')
        cp, res = self.run_plan(self.plan(script), 0, timeout=HANG)
        self.assertEqual(stat.S_IMODE(os.stat(self.run_dir("suid")).st_mode), 0o755)
        self.assertEqual(stat.S_IMODE(os.stat(self.run_dir("open")).st_mode), 0o755)
        self.assertEqual(stat.S_IMODE(os.stat(self.run_dir("open", "g")).st_mode), 0o755)
        self.assertTrue(any("setuid, setgid, sticky" in n and "and 3 with" in n
                            for n in res["notes"]), res["notes"])
        self.assert_verifies()

    def test_what_a_run_leaves_at_the_evidence_root_is_still_sealed(self):
        # Issue 40 §4: without run_as, a link, a FIFO or a directory the run left
        # at the evidence root, outside its own directory, or a chmod 000 or 500 of
        # the root, stopped the seal (exit 3, no SHA256). Each is still sealed,
        # never as abev's record. abev runs unprivileged: root writes whatever the mode.
        abev, work, become = self.unprivileged()
        cases = {
            "link": ('ln -s /etc "$R/planted"', "./planted: a symlink to '/etc' left by the "
                     "run was removed"),
            "fifo": ('mkfifo "$R/fifo"', "./fifo: a FIFO left by the run was removed"),
            "dir": ('mkdir "$R/newdir" && echo x > "$R/newdir/f"', "newdir: a directory abev "
                    "did not write appeared outside the run directories"),
            "000": ('chmod 000 "$R"', ".: its mode was changed to 0000 during the run; abev "
                    "took u+rwx back"),
            "500": ('chmod 500 "$R" "$R/runs"', "runs: its mode was changed to 0500 during the "
                    "run; abev took u+rwx back"),
        }
        for name, (action, note) in cases.items():
            with self.subTest(case=name):
                script = 'R=$(dirname "$(dirname "$(dirname "$ABEV_RUN_DIR")")") && ' + action
                plan = os.path.join(work, f"plan-{name}.json")
                with open(plan, "w") as f:
                    json.dump(self.plan(script), f)
                os.chmod(plan, 0o644)
                ev = os.path.join(work, f"ev-{name}")
                cp = subprocess.run([abev, "run", plan, "--out", ev, "--unsigned"], cwd=work,
                                    capture_output=True, text=True, timeout=HANG,
                                    preexec_fn=become)
                self.assertIn(cp.returncode, (0, 1), cp.stdout + cp.stderr)
                with open(os.path.join(ev, "result.json")) as f:
                    res = json.load(f)
                self.assertTrue(any(note in n for n in res["notes"]), res["notes"])
                self.assertTrue(os.path.exists(os.path.join(ev, "SHA256")))
                v = subprocess.run([abev, "verify", ev], cwd=work, capture_output=True,
                                   text=True, timeout=HANG, preexec_fn=become)
                # Sealed: clean when only a mode was taken back, else not abev's record.
                self.assertEqual(v.returncode, 7 if name in ("000", "500") else 8,
                                 v.stdout + v.stderr)

    def test_a_path_longer_than_a_manifest_holds_is_moved_up(self):
        # Issue 40 §4: a path over 1023 bytes (signify reads no longer name) inside
        # the run's own directory made the seal fail: exit 3, no SHA256.
        script = ('cd "$ABEV_RUN_DIR" && d=$(printf "%0250d" 0) && '
                  'mkdir -p "$d/$d/$d/$d/$d" && echo kept > "$d/$d/$d/$d/$d/f" && echo top > top')
        cp, res = self.run_plan(self.plan(script), 0, timeout=HANG)
        self.assertEqual(res["status"], "completed", res["notes"])
        self.assertTrue(any("its path is longer than 1023 bytes" in n and
                            "moved to 'runs/a/run-1/long-path-1'" in n for n in res["notes"]),
                        res["notes"])
        with open(self.run_dir("long-path-1")) as f:
            self.assertEqual(f.read(), "kept\n")
        self.assertTrue(os.path.exists(self.run_dir("top")))
        self.assert_verifies()

    def test_extended_attributes_are_not_kept(self):
        # Issue 40 §6: user.* attributes, ACLs and file capabilities a run set stayed
        # in the evidence (cp -a, or an extraction as root, would carry them on).
        probe = self.path("probe")
        with open(probe, "w") as f:
            f.write("x")
        try:
            os.setxattr(probe, "user.probe", b"1")
        except OSError as e:
            self.skipTest(f"{self.tmp}'s file system takes no user.* attributes ({e})")
        # A POSIX ACL as the kernel stores it: version 2, then (tag, perm, id) entries.
        acl = struct.pack("<I", 2) + b"".join(
            struct.pack("<HHI", tag, perm, uid) for tag, perm, uid in
            ((1, 6, 0xFFFFFFFF), (2, 6, 65534), (4, 4, 0xFFFFFFFF), (0x10, 6, 0xFFFFFFFF),
             (0x20, 4, 0xFFFFFFFF)))
        setter = self.path("setter.py")
        with open(setter, "w") as f:
            f.write("import os, sys\n"
                    "d = os.environ['ABEV_RUN_DIR']\n"
                    "os.makedirs(d + '/sub')\n"
                    "for p in (d + '/f', d + '/sub/g'):\n"
                    "    open(p, 'w').write('x')\n"
                    "    os.setxattr(p, 'user.note', b'planted')\n"
                    f"    os.setxattr(p, 'system.posix_acl_access', {acl!r})\n"
                    "os.setxattr(d + '/sub', 'user.dir', b'planted')\n")
        script = f'"{sys.executable}" "{setter}"'
        setcap = shutil.which("setcap") or "/usr/sbin/setcap"
        caps = os.geteuid() == 0 and os.path.exists(setcap)
        if caps:
            script += f' && "{setcap}" cap_net_raw+ep "$ABEV_RUN_DIR/f"'
        cp, res = self.run_plan(self.plan(script), 0, timeout=HANG)
        for parts in (("f",), ("sub",), ("sub", "g")):
            self.assertEqual(os.listxattr(self.run_dir(*parts), follow_symlinks=False), [],
                             parts)
        self.assertTrue(any("with extended attributes (ACLs, file capabilities, user.* "
                            "attributes): abev removed them" in n and "3 entries" in n
                            for n in res["notes"]), res["notes"])
        self.assert_verifies()

    def test_names_planted_where_abev_unshares_a_file_do_not_stop_the_seal(self):
        # §12: a hard-linked file is given a name of its own through a copy beside
        # it; the copy's name was ".NAME.abev-unshare.PID", PID abev's (the run's
        # parent): a directory planted there made the seal fail.
        plant = " ".join(f'mkdir -p ".{n}.abev-unshare.$PPID" ".{n}.abev-unshare.$$";'
                         for n in ("f", "g"))
        script = f'cd "$ABEV_RUN_DIR" && echo shared > f && ln f g && {plant} echo ok'
        cp, res = self.run_plan(self.plan(script), 0, timeout=HANG)
        self.assertEqual(res["status"], "completed", res["notes"])
        for n in ("f", "g"):
            st = os.stat(self.run_dir(n))
            self.assertEqual(st.st_nlink, 1)
            with open(self.run_dir(n)) as f:
                self.assertEqual(f.read(), "shared\n")
        self.assert_verifies()

    def test_a_hard_link_to_a_sparse_file_is_copied_with_its_holes(self):
        # §8: giving a hard-linked sparse file a name of its own wrote every hole.
        if not sparse_supported(self.path()):
            self.skipTest("the scratch file system keeps no holes")
        script = ('cd "$ABEV_RUN_DIR" && truncate -s 256M s && printf end >> s && ln s t')
        cp, res = self.run_plan(self.plan(script), 0, timeout=HANG)
        self.assertEqual(res["status"], "completed", res["notes"])
        for n in ("s", "t"):
            st = os.stat(self.run_dir(n))
            self.assertEqual(st.st_nlink, 1)
            self.assertEqual(st.st_size, (256 << 20) + 3)
            self.assertLess(st.st_blocks * 512, 16 << 20, f"{n}: its holes were written")
        with open(self.run_dir("t"), "rb") as f:
            f.seek(256 << 20)
            self.assertEqual(f.read(), b"end")
        self.assert_verifies()

    def test_bytes_past_max_run_bytes_are_removed_before_hashing(self):
        # §5: a sparse terabyte was hashed in full (and took the seal hours). By
        # apparent size, in name order: a fits, big does not, z still fits.
        script = ('cd "$ABEV_RUN_DIR" && printf 1234567890 > a && truncate -s 1T big && '
                  'printf 12345 > z')
        cp, res = self.run_plan(self.plan(script, limits={"max_run_bytes": 20}), None,
                                timeout=HANG)
        inv = res["invocations"][0]
        self.assertEqual(inv["status"], "failed", inv)
        self.assertIn("more than limits.max_run_bytes of 20", inv["reason"])
        self.assertFalse(os.path.exists(self.run_dir("big")))
        self.assertTrue(os.path.isfile(self.run_dir("a")))
        self.assertTrue(os.path.isfile(self.run_dir("z")))
        self.assertTrue(any("'big' (%d bytes)" % TiB in n for n in res["notes"]),
                        res["notes"])
        self.assert_verifies(clean=False)

    def test_directories_count_toward_max_files(self):
        # limits.max_files counted regular files only: a run could leave any number
        # of directories (60,000 empty ones took abev minutes to walk and remove).
        # Seven entries, three of them files: past the first five in name order
        # (a, b, b/in, c, d) they are removed.
        script = ('cd "$ABEV_RUN_DIR" && echo a > a && mkdir b d f g && echo in > b/in && '
                  'echo c > c')
        cp, res = self.run_plan(self.plan(script, limits={"max_files": 5}), None,
                                timeout=HANG)
        inv = res["invocations"][0]
        self.assertEqual(inv["status"], "failed", inv)
        self.assertEqual(inv["reason"], "left 7 entries in its directory, more than "
                                        "limits.max_files of 5")
        self.assertTrue(any(n.startswith(f"{inv['dir']}: left 7 entries (files and "
                                         "directories), more than limits.max_files of 5: "
                                         "the 2 past the first 5 in name order were removed")
                            for n in res["notes"]), res["notes"])
        for n in ("f", "g"):
            self.assertFalse(os.path.exists(self.run_dir(n)), n)
        for n in ("a", "c", os.path.join("b", "in")):
            self.assertTrue(os.path.isfile(self.run_dir(n)), n)
        self.assert_verifies(clean=False)

    def test_a_directory_past_max_files_goes_with_its_contents(self):
        # A directory past the limit is removed with all beneath it, however deep,
        # and its entries count: 2 files, then z, z/1, z/2, z/sub, z/sub/3.
        script = ('cd "$ABEV_RUN_DIR" && echo a > a && echo b > b && mkdir -p z/sub && '
                  'echo 1 > z/1 && echo 2 > z/2 && echo 3 > z/sub/3')
        cp, res = self.run_plan(self.plan(script, limits={"max_files": 2}), None,
                                timeout=HANG)
        inv = res["invocations"][0]
        self.assertEqual(inv["status"], "failed", inv)
        self.assertEqual(inv["reason"], "left 7 entries in its directory, more than "
                                        "limits.max_files of 2")
        self.assertTrue(any("the 5 past the first 2 in name order were removed" in n
                            for n in res["notes"]), res["notes"])
        self.assertFalse(os.path.lexists(self.run_dir("z")))
        self.assertEqual(sorted(n for n in os.listdir(self.run_dir()) if len(n) == 1),
                         ["a", "b"])
        with open(self.path("ev", "SHA256")) as f:
            self.assertNotIn(f"({inv['dir']}/z/", f.read())
        self.assert_verifies(clean=False)

    def test_empty_directories_are_removed_at_the_runs_end(self):
        # Empty directories were removed only when the evidence was sealed, after
        # the ledger had noted each (60,000 of them: a walk of the whole evidence
        # and a removal each, with no signal looked for). They go at the run's
        # end, a tree of them deepest first, with a note; a non-empty one stays.
        script = ('cd "$ABEV_RUN_DIR" && mkdir -p e1 e2 nest/a/b full/in && '
                  'echo kept > full/in/f && echo top > top')
        cp, res = self.run_plan(self.plan(script), 0, timeout=HANG)
        inv = res["invocations"][0]
        self.assertEqual(inv["status"], "ok", inv)
        self.assertIn(f"{inv['dir']}: 5 empty directories were removed: an empty directory "
                      "holds nothing the manifest can list, and abev verify refuses one",
                      res["notes"])
        for n in ("e1", "e2", "nest"):
            self.assertFalse(os.path.lexists(self.run_dir(n)), n)
        with open(self.run_dir("full", "in", "f")) as f:
            self.assertEqual(f.read(), "kept\n")
        self.assertTrue(os.path.isfile(self.run_dir("top")))
        self.assert_verifies()

    def test_directories_count_toward_what_the_evidence_holds(self):
        # The evidence-wide ceiling (1,000,000 in all) counted regular files only.
        # Ten runs of 1,000 directories holding 99 empty files each: 100,000
        # entries a run, so the tenth finds less room left than that (99,000
        # files alone would still fit).
        script = ("import os\nd = os.environ['ABEV_RUN_DIR']\n"
                  "for i in range(1000):\n"
                  "    os.mkdir(os.path.join(d, 'd%03d' % i))\n"
                  "    for k in range(99):\n"
                  "        os.close(os.open(os.path.join(d, 'd%03d' % i, 'f%02d' % k),\n"
                  "                         os.O_CREAT | os.O_WRONLY, 0o644))\n")
        plan = self.plan("", runs=10, limits={"max_files": 100000})
        plan["variants"][0]["command"] = [sys.executable, "-c", script]
        cp, res = self.run_plan(plan, None, timeout=HANG * 2)
        invs = res["invocations"]
        self.assertEqual([i["status"] for i in invs], ["ok"] * 9 + ["failed"], res["notes"])
        self.assertRegex(invs[9]["reason"], r"^left 100000 entries in its directory, more than "
                         r"the room left in the evidence directory \(it holds at most "
                         r"1,000,000 entries in all\) of 9\d{4}$")
        self.assertFalse(os.path.lexists(self.path("ev", invs[9]["dir"], "d999")))

    def test_a_log_the_run_grew_itself_is_cut_back(self):
        # §5: the run extends abev's own log (sparse) past limits.max_log_bytes.
        script = 'echo hello; truncate -s 1T "$ABEV_RUN_DIR/stderr.log"; echo bye'
        cp, res = self.run_plan(self.plan(script, limits={"max_log_bytes": 4096}), None,
                                timeout=HANG)
        inv = res["invocations"][0]
        self.assertEqual(inv["status"], "failed", inv)
        self.assertIn("wrote to abev's logs itself", inv["reason"])
        self.assertLessEqual(os.stat(self.run_dir("stderr.log")).st_size, 4096)
        self.assert_verifies(clean=False)

    def test_a_signal_while_hashing_stops_abev(self):
        # §5: SIGINT was ignored while abev hashed a sparse terabyte for the seal;
        # only SIGKILL stopped it. A signal is sent every half second: one that
        # comes while abev hashes must stop it, and the evidence is sealed at once
        # with what abev had read, the terabyte named as not hashed (the signals
        # after the first do not stop that seal).
        script = 'truncate -s 1T "$ABEV_RUN_DIR/huge" && echo made'
        plan = self.write_plan(self.plan(script, limits={"max_run_bytes": 2 * TiB}))
        p = subprocess.Popen([ABEV, "run", plan, "--out", self.path("ev"), "--unsigned"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            # Once the invocation's record is written, the run is over.
            while p.poll() is None and not recorded(self.path("ev")):
                time.sleep(0.1)
            deadline = time.monotonic() + HANG
            while p.poll() is None and time.monotonic() < deadline:
                p.send_signal(signal.SIGINT)
                time.sleep(0.5)
            out, err = p.communicate(timeout=HANG)
        finally:
            if p.poll() is None:
                p.kill()
                p.communicate()
        self.assertEqual(p.returncode, 128 + signal.SIGINT, err)
        res = self.load("ev", "result.json")
        self.assertEqual(res["status"], "interrupted", res["notes"])
        self.assertTrue(any("sealed it at once with what it had read" in n
                            for n in res["notes"]), res["notes"])
        self.assertIn("runs/a/run-1/huge", res["unsealed"])
        self.assertTrue(os.path.exists(self.path("ev", "SHA256")))
        self.assertTrue(os.path.isfile(self.run_dir("huge")), "abev lost the run's file")


    def test_a_run_that_uses_up_the_inodes_leaves_a_final_status_sealed(self):
        # §8: a run that makes files until the file system has no inode left made
        # the final result.json unwritable: the evidence was sealed saying
        # "running" while the terminal said failed. abev holds inodes back as it
        # holds bytes. A file system of 400 inodes, as root (a tmpfs mount).
        fs = self.path("fs")
        os.mkdir(fs)
        if os.geteuid() != 0:
            self.skipTest("mounting a small file system needs root")
        mount = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64m,nr_inodes=400",
                                "tmpfs", fs], capture_output=True, text=True)
        if mount.returncode != 0:
            self.skipTest(f"cannot mount a tmpfs here: {mount.stderr.strip()}")
        self.addCleanup(subprocess.run, ["umount", "-l", fs], capture_output=True)
        script = 'i=0; while : > "$ABEV_RUN_DIR/f$i" 2>/dev/null; do i=$((i+1)); done; echo $i'
        plan = self.write_plan(self.plan(script))
        ev = os.path.join(fs, "ev")
        cp = self.abev("run", plan, "--out", ev, timeout=HANG)
        self.assertNotEqual(cp.returncode, 0, cp.stdout + cp.stderr)
        with open(os.path.join(ev, "result.json")) as f:
            res = json.load(f)
        self.assertEqual(res["status"], "failed", res["notes"])
        self.assertTrue(any("ran out of inodes" in n for n in res["notes"]), res["notes"])
        cp = self.abev("verify", ev)
        self.assertEqual(cp.returncode, 8, cp.stdout + cp.stderr)
        self.assertRegex(cp.stdout, r"seal: +intact")
        self.assertRegex(cp.stdout, r"status: +failed")


if __name__ == "__main__":
    unittest.main()
