"""The signing key out of the run's reach (issue 40 §2). A run is a process
of the user who runs abev; it reads, of abev and of every abev process (the
watchdog too), /proc/PID/environ, /proc/PID/cmdline and, through
/proc/PID/maps, /proc/PID/mem, and looks there for the key's text, its
private bytes and its passphrase — for each way of handing abev a key: --key
FILE, the key's text in ABEV_SIGNING_KEY, a path in ABEV_SIGNING_KEY with
--passphrase-env, and --key-fd. It finds none: abev is not dumpable, so
environ, maps and mem are refused, and the environment block it was started
with no longer holds the key (test_util checks the overwrite itself). As
root the whole run is made as user 'nobody', so that the run is what it is
on a developer's machine: the same user as abev, without root's reach."""
import base64
import json
import os
import pwd
import subprocess
import sys

from common import ABEV, HELPER, AbevTestCase, OtherUser

# The run: reads what it can of every abev process of its user and says, per
# process and file, whether it was refused and whether a needle was found.
PROBE = r'''
import json, os, sys
needles = [bytes.fromhex(h) for h in json.load(open(sys.argv[1]))]
me = os.getuid()
pids = {os.getppid()}
for d in os.listdir("/proc"):
    if d.isdigit():
        try:
            with open(f"/proc/{d}/comm") as f:
                comm = f.read().strip()
            if comm in ("abev", "abev-watchdog") and os.stat(f"/proc/{d}").st_uid == me:
                pids.add(int(d))
        except OSError:
            pass
def found(data):
    return any(n in data for n in needles)
out = {}
for pid in sorted(pids):
    r = {}
    try:
        with open(f"/proc/{pid}/comm") as f:
            r["comm"] = f.read().strip()
    except OSError:
        r["comm"] = "?"
    for name in ("environ", "cmdline"):
        try:
            with open(f"/proc/{pid}/{name}", "rb") as f:
                r[name] = "found" if found(f.read()) else "clean"
        except OSError as e:
            r[name] = "refused"
    try:
        hit = False
        with open(f"/proc/{pid}/maps") as maps, open(f"/proc/{pid}/mem", "rb", 0) as mem:
            for line in maps:
                addr, perms = line.split()[:2]
                if not perms.startswith("r"):
                    continue
                lo, hi = (int(x, 16) for x in addr.split("-"))
                try:
                    mem.seek(lo)
                    hit = hit or found(mem.read(hi - lo))
                except (OSError, OverflowError, ValueError):
                    pass
        r["mem"] = "found" if hit else "clean"
    except OSError:
        r["mem"] = "refused"
    out[str(pid)] = r
print("PROBE " + json.dumps(out, sort_keys=True))
'''


def pem_body(text):
    return "".join(l for l in text.splitlines() if l and not l.startswith("-----"))


class KeyOutOfReach(OtherUser, AbevTestCase):
    validate_evidence_on_teardown = True

    def setUp(self):
        self.user = None
        if os.geteuid() == 0:
            try:
                self.user = pwd.getpwnam("nobody")
            except KeyError:
                self.skipTest("no user 'nobody' on this machine to run abev as")
        super().setUp()
        if self.user:
            os.chmod(self.tmp, 0o755)
            self.helper, self.abev_bin = self.programs_for_user()
        else:
            self.helper, self.abev_bin = HELPER, ABEV

    def as_user(self):
        if self.user:
            self.become_user()

    def own(self, path, mode):
        os.chmod(path, mode)
        if self.user:
            os.chown(path, self.user.pw_uid, self.user.pw_gid)

    def keygen(self, name, passphrase=None):
        """(PEM text, needles): the key's text and what of it must stay
        hidden — a stretch of its base64 body, and, unencrypted, its 32
        private bytes; encrypted, the passphrase."""
        prefix = self.path(name)
        env = dict(os.environ)
        args = [ABEV, "keygen", "--out", prefix]
        if passphrase:
            env["ABEV_TEST_PW"] = passphrase
            args += ["--passphrase-env", "ABEV_TEST_PW"]
        subprocess.run(args, check=True, env=env, capture_output=True, timeout=60)
        self.own(prefix + ".key", 0o600)
        with open(prefix + ".key", encoding="ascii") as f:
            text = f.read()
        body = pem_body(text)
        needles = [body[8:40].encode()]
        if passphrase:
            needles.append(passphrase.encode())
        else:
            der = base64.b64decode(body)
            # PKCS#8 of an Ed25519 key: a 16-byte header, then the 32-byte seed.
            self.assertEqual(len(der), 48)
            needles.append(der[16:])
        return prefix + ".key", text, needles

    def run_probe(self, case, args, env_extra, needles, pass_fds=()):
        probe = self.path(f"probe-{case}.py")
        with open(probe, "w", encoding="utf-8") as f:
            f.write(PROBE)
        needle_file = self.path(f"needles-{case}.json")
        with open(needle_file, "w", encoding="utf-8") as f:
            json.dump([n.hex() for n in needles], f)
        self.own(needle_file, 0o600)
        plan = {"schema": "abev.plan/1", "name": "reach",
                "variants": [{"name": "probe",
                              "command": [sys.executable, probe, needle_file]}],
                "schedule": {"runs": 1, "warmups": 0},
                "load": {"max_cpu_wait_pct": 100, "max_foreign_cpu": 64, "max_repeats": 0}}
        p = self.write_plan(plan, name=f"plan-{case}.json")
        lock = self.path(f"lock-{case}")
        os.mkdir(lock)
        self.own(lock, 0o700)
        # Where the user may create the evidence directory.
        out = self.path(f"out-{case}", "ev")
        os.mkdir(os.path.dirname(out))
        self.own(os.path.dirname(out), 0o755)
        env = dict(os.environ)
        env.pop("ABEV_SIGNING_KEY", None)
        env.update(ABEV_LOCK_DIR=lock, **env_extra)
        cp = subprocess.run([self.abev_bin, "run", p, "--out", out, *args], env=env,
                            capture_output=True, text=True, timeout=300, cwd=self.tmp,
                            stdin=subprocess.DEVNULL, pass_fds=pass_fds,
                            preexec_fn=self.as_user)
        self.assertEqual(cp.returncode, 0, cp.stdout + cp.stderr)
        with open(os.path.join(out, "result.json"), encoding="utf-8") as f:
            res = json.load(f)
        self.assertTrue(res["report"]["signed"], case)
        log = os.path.join(out, "runs", "probe", "run-1", "test.log")
        with open(log, encoding="utf-8") as f:
            line = [l for l in f.read().splitlines() if l.startswith("PROBE ")]
        self.assertEqual(len(line), 1, case)
        seen = json.loads(line[0][len("PROBE "):])
        comms = sorted(r["comm"] for r in seen.values())
        # Not vacuous: abev itself and its watchdog were probed.
        self.assertIn("abev", comms, (case, seen))
        self.assertIn("abev-watchdog", comms, (case, seen))
        for pid, r in seen.items():
            for name in ("environ", "cmdline", "mem"):
                self.assertNotEqual(r[name], "found", (case, pid, r))
            # Not dumpable: what would show the environment block and memory is refused.
            self.assertEqual((r["environ"], r["mem"]), ("refused", "refused"), (case, pid, r))
            self.assertEqual(r["cmdline"], "clean", (case, pid, r))
        # And none of it in the evidence.
        for root, _, files in os.walk(out):
            for name in files:
                with open(os.path.join(root, name), "rb") as f:
                    data = f.read()
                for n in needles:
                    self.assertNotIn(n, data, (case, name))
        return res

    def test_key_file_option(self):
        key, _, needles = self.keygen("opt")
        res = self.run_probe("option", ["--key", key], {}, needles)
        self.assertEqual(res["report"]["key_source"], "option")

    def test_key_text_in_the_environment(self):
        _, text, needles = self.keygen("envtext")
        res = self.run_probe("envtext", [], {"ABEV_SIGNING_KEY": text}, needles)
        self.assertEqual(res["report"]["key_source"], "environment")

    def test_key_path_in_the_environment_with_a_passphrase(self):
        pw = "correct-horse-battery-staple-0042"
        key, _, needles = self.keygen("envpath", passphrase=pw)
        res = self.run_probe("envpath", ["--passphrase-env", "OUR_PW"],
                             {"ABEV_SIGNING_KEY": key, "OUR_PW": pw}, needles)
        self.assertEqual(res["report"]["key_source"], "environment")

    def test_key_fd(self):
        key, text, needles = self.keygen("fd")
        r, w = os.pipe()
        os.write(w, text.encode())
        os.close(w)
        try:
            res = self.run_probe("fd", ["--key-fd", str(r)], {}, needles, pass_fds=(r,))
        finally:
            os.close(r)
        self.assertEqual(res["report"]["key_source"], "fd")
        # The reproduce command names the descriptor, never the text.
        with open(self.path("out-fd", "ev", "report.md"), encoding="utf-8") as f:
            report = f.read()
        self.assertIn(f"--key-fd {r}", report)


class KeyFdOptions(AbevTestCase):
    """--key-fd as a user meets it: what it contradicts, what it refuses."""

    def test_refusals(self):
        plan = self.write_plan({"schema": "abev.plan/1", "name": "k",
                                "variants": [{"name": "a", "command": ["true"]}]})
        for args, want in ((["--key-fd", "3", "--unsigned"],
                            "--key-fd and --unsigned contradict each other"),
                           (["--key-fd", "3", "--key", "k.key"],
                            "--key-fd and --key each name a key: give one"),
                           (["--key-fd", "1", "--dry-run"],
                            "'--key-fd' takes an open descriptor's number"),
                           (["--key-fd", "x", "--dry-run"],
                            "'--key-fd' takes an open descriptor's number")):
            cp = self.abev("run", plan, "--out", self.path("ev"), *args)
            self.assertEqual(cp.returncode, 2, (args, cp.stderr))
            self.assertIn(want, cp.stderr, args)
            self.assertFalse(os.path.exists(self.path("ev")))

    def test_a_path_on_the_descriptor_is_refused_unshown(self):
        self.abev("keygen", "--out", self.path("k"), check=0)
        plan = self.write_plan({"schema": "abev.plan/1", "name": "k",
                                "variants": [{"name": "a", "command": ["true"]}]})
        r, w = os.pipe()
        os.write(w, self.path("k.key").encode())
        os.close(w)
        try:
            cp = subprocess.run([ABEV, "run", plan, "--out", self.path("ev"), "--key-fd",
                                 str(r), "--dry-run"], capture_output=True, text=True,
                                timeout=120, pass_fds=(r,), stdin=subprocess.DEVNULL)
        finally:
            os.close(r)
        self.assertEqual(cp.returncode, 2, cp.stderr)
        self.assertIn(f"the key text read from --key-fd {r} is not a key's text (not shown)",
                      cp.stderr)
        self.assertNotIn(self.path("k.key"), cp.stderr)
