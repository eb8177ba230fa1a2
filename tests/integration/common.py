"""Shared pieces of the integration tests: where the binaries are, and how
to write a plan and run abev on it in a scratch directory."""
import hashlib
import json
import os
import pwd
import shutil
import subprocess
import tempfile
import unittest

ABEV = os.environ.get("ABEV", "")
HELPER = os.environ.get("ABEV_HELPER", "")
DEMO = os.environ.get("ABEV_DEMO", "")
SRC = os.environ.get("ABEV_SRC", "")
SANITIZED = os.environ.get("ABEV_SANITIZED", "") == "1"


class AbevTestCase(unittest.TestCase):
    """Gives each test a scratch directory and helpers to drive abev."""

    # Tests that build broken evidence on purpose set this to False.
    validate_evidence_on_teardown = True

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="abev-test-")

    def tearDown(self):
        # Every evidence directory a test produced must match evidence-schema/,
        # whatever the test itself checked.
        try:
            import schemas
            for root, dirs, files in os.walk(self.tmp if self.validate_evidence_on_teardown
                                             else os.devnull):
                if "result.json" in files and "plan.json" in files:
                    schemas.validate_evidence(self, root)
                    dirs[:] = []
        finally:
            shutil.rmtree(self.tmp, ignore_errors=True)

    def path(self, *parts):
        return os.path.join(self.tmp, *parts)

    def write_plan(self, plan, name="plan.json"):
        """Writes plan (a dict, or a str written verbatim) and returns its path."""
        p = self.path(name)
        with open(p, "w", encoding="utf-8") as f:
            if isinstance(plan, str):
                f.write(plan)
            else:
                json.dump(plan, f, indent=2)
        return p

    def abev(self, *args, timeout=300, env=None, check=None):
        """Runs abev with args; returns CompletedProcess (text mode). A run
        that names neither --key nor --unsigned gets --unsigned: most tests
        are about what was measured, and the signing tests pass --key."""
        if args and args[0] == "run" and not {"--key", "-k", "--unsigned", "--dry-run", "-n",
                                               "--help", "-h"} & set(args):
            args = (*args, "--unsigned")
        e = dict(os.environ)
        if env:
            e.update(env)
        cp = subprocess.run([ABEV, *args], capture_output=True, text=True,
                            timeout=timeout, env=e, stdin=subprocess.DEVNULL)
        if check is not None:
            self.assertEqual(cp.returncode, check,
                             f"abev {' '.join(args)} exited {cp.returncode}\n"
                             f"stdout:\n{cp.stdout}\nstderr:\n{cp.stderr}")
        return cp

    def run_plan(self, plan, expect=0, *args, out="ev", plan_name="plan.json", env=None,
                 timeout=300):
        """Runs `abev run PLAN --out OUT ARGS...` and returns (cp, result): the
        CompletedProcess and OUT's result.json, loaded. plan is a dict (written
        to plan_name in the scratch directory) or the path of a plan file
        already written; OUT is self.path(out). The exit code must be expect
        (None: not checked)."""
        p = plan if isinstance(plan, str) else self.write_plan(plan, name=plan_name)
        cp = self.abev("run", p, "--out", self.path(out), *args, env=env, timeout=timeout,
                       check=expect)
        return cp, self.load(out, "result.json")

    def load(self, *parts):
        with open(self.path(*parts), encoding="utf-8") as f:
            return json.load(f)


def check_foreign_wait(test, inv):
    """The figures of one run agree with each other and with its status."""
    test.assertEqual(inv["run_cpus"], len(inv["cpus"].split(",")) if inv["cpus"] and
                     "-" not in inv["cpus"] else inv["run_cpus"])
    if inv["foreign_wait_ns"] is None:
        test.skipTest(f"no foreign share measured here: run_cpus {inv['run_cpus']}, "
                      f"foreign_busy_ns {inv['foreign_busy_ns']}")
    tick = 10**9 // os.sysconf("SC_CLK_TCK")
    # Bounded by the wait and by what others ran on its CPUs: whole ticks less their
    # resolution, or the nanosecond count where the machine keeps one, the larger.
    fine = inv["foreign_busy_fine_ns"]
    test.assertLessEqual(inv["foreign_wait_ns"], inv["cpu_wait_ns"])
    test.assertLessEqual(inv["foreign_busy_ns"], inv["run_cpus"] * inv["wall_ns"])
    # The wait itself, or that bound spread over the CPUs the run could keep busy (its
    # threads' active time over the wall): the basis names which (docs/plan.md, Contention).
    bound = max(0, inv["foreign_busy_ns"] - 2 * tick * inv["run_cpus"],
                fine if fine is not None else 0)
    threads = inv["cpu_wait_source"] == "schedstat" and inv["tree_active_ns"] is not None
    par = min(max(inv["tree_active_ns"] / inv["wall_ns"], 1), inv["run_cpus"]) if threads else 1
    cap = bound / par
    if threads and inv["tree_active_ns"] <= 1.05 * inv["wall_ns"]:
        # One thread at a time: the bound only guards against a counter that missed work.
        cap += 2 * tick * inv["run_cpus"]
    basis = inv["foreign_wait_basis"]
    if basis == "foreign_busy":
        test.assertAlmostEqual(inv["foreign_wait_ns"], cap, delta=2)
    else:
        test.assertEqual(inv["foreign_wait_ns"], inv["cpu_wait_ns"])
        test.assertLessEqual(inv["foreign_wait_ns"], cap + 1)
    test.assertEqual(basis == "cgroup", inv["cpu_wait_source"] == "cgroup" and
                     basis != "foreign_busy", inv)
    if basis == "one_thread":
        test.assertLessEqual(inv["tree_active_ns"], 1.05 * inv["wall_ns"])
    if fine is not None:
        test.assertIn(inv["foreign_busy_fine_source"], ("schedstat", "cpuacct"))
        test.assertLessEqual(fine, inv["run_cpus"] * inv["wall_ns"])
    test.assertAlmostEqual(inv["foreign_wait_pct"],
                           inv["foreign_wait_ns"] * 100 / inv["wall_ns"], places=3)
    # The guard's verdict and the recorded figure agree: over the limit, a
    # run is discarded, or kept marked loaded.
    limit = inv["max_cpu_wait_pct"]
    test.assertEqual(inv["status"] == "discarded" or inv["loaded"],
                     inv["foreign_wait_pct"] > limit, inv)
    test.assertFalse(inv["status"] == "discarded" and inv["loaded"], inv)


def reseal(ev):
    """Makes evidence directory ev's manifest (SHA256) anew over an edit, as whoever
    edited it would: the commands check the manifest first and refuse evidence that
    does not match it."""
    files = sorted(os.path.relpath(os.path.join(d, n), ev) for d, _, ns in os.walk(ev)
                   for n in ns if n not in ("SHA256", "SHA256.sig") or d != ev)
    manifest = subprocess.run(["sha256sum", "--tag", *files], cwd=ev, check=True,
                              capture_output=True).stdout
    with open(os.path.join(ev, "SHA256"), "wb") as f:
        f.write(manifest)


def recorded(ev, inv_dir=None):
    """Whether the run writing evidence ev has recorded the invocation of
    inv_dir (any one when None) — a line of its journal invocations.jsonl —
    or has finished its runs (its final result.json is staged or written:
    the journal is gone then)."""
    try:
        with open(os.path.join(ev, "invocations.jsonl"), "rb") as f:
            for line in f.read().split(b"\n")[:-1]:
                if inv_dir is None or json.loads(line)["dir"] == inv_dir:
                    return True
    except (OSError, ValueError):
        pass
    if os.path.exists(os.path.join(ev, "result.json.sealing")):
        return True
    try:
        with open(os.path.join(ev, "result.json"), encoding="utf-8") as f:
            return json.load(f)["status"] != "running"
    except (OSError, ValueError, KeyError):
        return False


def logs_made(inv):
    """The logs abev made for inv: each stream's, at its first byte (none for silence)."""
    return sorted(name for name, stream in (("test.log", "stdout"), ("stderr.log", "stderr"))
                  if inv["logs"][stream]["bytes_written"] > 0)


def flood_whole(n):
    """What result.json records of the whole stream `abev-helper flood n`
    prints (64 'x' and a newline, again, from each 64 KiB write's start):
    {"bytes_total": n, "sha256": hex}, hashed here without holding it."""
    chunk = bytes(10 if i % 65 == 64 else 120 for i in range(65536))
    h = hashlib.sha256()
    left = n
    while left > 0:
        h.update(chunk[:min(left, len(chunk))])
        left -= len(chunk)
    return {"bytes_total": n, "sha256": h.hexdigest()}


def helper_plan(variants, runs=1, warmups=0, order="alternate", gap=0, timeout=None,
                name="t", load=None, seed=1, helper=None, **extra):
    """A plan whose variants run the test helper: variants is a list of
    (name, [helper args]) pairs. helper: the helper's path, HELPER if None.
    order None: the plan names none (abev's default)."""
    sched = {"warmups": warmups, "runs": runs, "order": order, "seed": seed,
             "gap_seconds": gap}
    if order is None:
        del sched["order"]
    if timeout is not None:
        sched["timeout_seconds"] = timeout
    plan = {
        "schema": "abev.plan/1",
        "name": name,
        "variants": [{"name": n, "command": [helper or HELPER, *a]} for n, a in variants],
        "schedule": sched,
        # Tests share a noisy machine: never discard unless a test asks to.
        "load": load if load is not None else {"max_cpu_wait_pct": 100, "max_foreign_cpu": 64, "max_repeats": 0},
    }
    plan.update(extra)
    return plan


class OtherUser:
    """For a test case that runs programs as the user self.user (set by its
    setUp, as root): copies of the binaries that user can run, and the
    preexec_fn that becomes it."""

    def set_up_as_root_with_nobody(self, why):
        """setUp's first step for a case that needs root and the user 'nobody'
        (self.user): skipped, saying why root is needed, before the scratch
        directory is made (tearDown would not remove it); then the scratch
        directory, open to that user."""
        if os.geteuid() != 0:
            self.skipTest(f"{why}; these tests run as uid {os.geteuid()}")
        try:
            self.user = pwd.getpwnam("nobody")
        except KeyError:
            self.skipTest("no user 'nobody' on this machine")
        AbevTestCase.setUp(self)
        os.chmod(self.tmp, 0o755)

    def programs_for_user(self):
        """(helper, abev): copies the user can run. The build may sit where
        only root can enter (a clone in root's 0700 home), so they go into
        the scratch directory, which tearDown removes. Skips the test when
        the user cannot reach even that (a TMPDIR closed to others)."""
        bindir = self.path("bin")
        os.mkdir(bindir)
        os.chmod(bindir, 0o755)
        copies = []
        for program in (HELPER, ABEV):
            copies.append(shutil.copy(program, bindir))
            os.chmod(copies[-1], 0o755)
        try:
            subprocess.run([copies[0], "exit", "0"], check=True, timeout=60, cwd=self.tmp,
                           stdin=subprocess.DEVNULL, preexec_fn=self.become_user)
        except (OSError, subprocess.CalledProcessError) as e:
            self.skipTest(f"user '{self.user.pw_name}' cannot run the helper copied to "
                          f"{copies[0]} ({e}): the directories above {self.tmp} (TMPDIR) "
                          "must let others through")
        return tuple(copies)

    def become_user(self):
        """For preexec_fn: the child drops root for the user, groups first."""
        os.setgroups([])
        os.setgid(self.user.pw_gid)
        os.setuid(self.user.pw_uid)
