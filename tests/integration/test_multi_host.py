"""examples/multi-host/ without a cluster: the GitHub Actions workflow is
well-formed YAML and runs the same commands as the Slurm job-array script
(abev run with --host-label and --bundle per host, then combine.sh over all
bundles); the array script, run as Slurm would run task 2, writes that
task's evidence under its label; combine.sh refuses what it cannot combine
and unpacks a verified bundle for abev report. `make check-slurm` runs the
array as real Slurm jobs."""
import os
import re
import shlex
import subprocess
import unittest

from common import ABEV, SRC, AbevTestCase

try:
    import yaml
except ImportError:
    yaml = None

EXAMPLE = os.path.join(SRC, "examples", "multi-host")
SBATCH = os.path.join(EXAMPLE, "abev-array.sbatch")
COMBINE = os.path.join(EXAMPLE, "combine.sh")
WORKFLOW = os.path.join(EXAMPLE, "github-actions.yml")
PLAN = "examples/multi-host/plan.json"


def shell_commands(text):
    """The shell command lines of text, continuation lines joined, comments dropped."""
    text = re.sub(r"\\\n\s*", " ", text)
    return [line.strip() for line in text.splitlines()
            if line.strip() and not line.strip().startswith("#")]


def abev_run_options(lines):
    """The options of every `abev run` command among lines."""
    found = []
    for line in lines:
        words = shlex.split(line, posix=True) if "run" in line else []
        for i, w in enumerate(words[:-1]):
            if w.endswith("abev") and words[i + 1] == "run":
                found.append({x.split("=")[0] for x in words[i + 2:] if x.startswith("--")})
    return found


class Workflow(unittest.TestCase):
    def setUp(self):
        if yaml is None:
            self.skipTest("python3-yaml is not installed: the workflow is not checked "
                          "(apt-get install python3-yaml)")
        with open(WORKFLOW, encoding="utf-8") as f:
            self.doc = yaml.safe_load(f)

    def steps_running(self, job):
        return "\n".join(s.get("run", "") for s in job["steps"])

    def test_matrix_runs_abev_per_runner_type(self):
        self.assertIsInstance(self.doc, dict)
        # YAML 1.1 reads the key `on` as true.
        self.assertTrue(self.doc.get("on", self.doc.get(True)), "no triggers")
        jobs = self.doc["jobs"]
        compare = jobs["compare"]
        runners = compare["strategy"]["matrix"]["os"]
        self.assertGreaterEqual(len(runners), 2, "a matrix over at least two runner types")
        self.assertEqual(compare["runs-on"], "${{ matrix.os }}")
        runs = abev_run_options(shell_commands(self.steps_running(compare)))
        self.assertEqual(len(runs), 1, "one abev run per matrix job")
        self.assertLessEqual({"--out", "--host-label", "--bundle"}, runs[0])
        text = self.steps_running(compare)
        self.assertIn(f"./abev run {PLAN}", text)
        self.assertIn('--host-label "${{ matrix.os }}"', text)
        uploads = [s for s in compare["steps"]
                   if s.get("uses", "").startswith("actions/upload-artifact@")]
        self.assertEqual(len(uploads), 1)
        self.assertIn("${{ matrix.os }}", uploads[0]["with"]["path"])
        self.assertIn("--bundle \"" + uploads[0]["with"]["path"] + "\"", text)

    def test_last_job_combines_every_bundle(self):
        jobs = self.doc["jobs"]
        combine = jobs["combine"]
        self.assertEqual(combine["needs"], "compare")
        downloads = [s for s in combine["steps"]
                     if s.get("uses", "").startswith("actions/download-artifact@")]
        self.assertEqual(len(downloads), 1)
        where = downloads[0]["with"]["path"]
        self.assertTrue(downloads[0]["with"].get("merge-multiple"))
        upload = next(s for s in jobs["compare"]["steps"]
                      if s.get("uses", "").startswith("actions/upload-artifact@"))
        self.assertTrue(re.fullmatch(downloads[0]["with"]["pattern"].replace("*", ".*"),
                                     upload["with"]["name"].replace("${{ matrix.os }}", "x")))
        lines = [line for line in shell_commands(self.steps_running(combine))
                 if "combine.sh" in line]
        self.assertEqual(len(lines), 1, lines)
        words = shlex.split(lines[0])
        self.assertIn("examples/multi-host/combine.sh", words)
        self.assertIn(f"{where}/*.tar.gz", words)
        self.assertEqual(words[words.index("--out") + 1], "combined.md")

    def test_same_commands_as_the_slurm_script(self):
        with open(SBATCH, encoding="utf-8") as f:
            sbatch = f.read()
        slurm = abev_run_options(shell_commands(sbatch))
        actions = abev_run_options(shell_commands(self.steps_running(self.doc["jobs"]["compare"])))
        self.assertEqual(len(slurm), 1, "one abev run per array task")
        # The same abev run, whichever way each chooses the key (--key or --unsigned).
        self.assertEqual(slurm[0], actions[0])
        self.assertIn(f"plan=${{ABEV_PLAN:-{PLAN}}}", sbatch)
        # Both end in combine.sh over the bundles (the Slurm side in README and check-slurm).
        with open(os.path.join(EXAMPLE, "README.md"), encoding="utf-8") as f:
            readme = f.read()
        with open(os.path.join(SRC, "mk", "check-slurm.sh"), encoding="utf-8") as f:
            check = f.read()
        self.assertRegex(readme, r"combine\.sh --pubkey \S+ \\\n\s+--out combined\.md "
                                 r"abev-multi-host/<array job id>/\*\.tar\.gz")
        self.assertIn('"$src/examples/multi-host/combine.sh" --pubkey', check)
        self.assertIn("examples/multi-host/abev-array.sbatch", check)


class SlurmScript(AbevTestCase):
    """abev-array.sbatch run by hand with the variables Slurm would set."""

    def task(self, task, labels="linux-x86 linux-arm", job="42", **env):
        e = dict(os.environ, SLURM_ARRAY_TASK_ID=str(task), SLURM_ARRAY_JOB_ID=job,
                 SLURM_SUBMIT_DIR=SRC, ABEV=ABEV, ABEV_OUT=self.path("out"),
                 ABEV_HOST_LABELS=labels)
        for k in ("ABEV_KEY", "ABEV_UNSIGNED", "ABEV_PLAN", "ABEV_PASSPHRASE_FILE"):
            e.pop(k, None)
        e.update(env)
        return subprocess.run(["sh", SBATCH], capture_output=True, text=True, env=e,
                              timeout=120, stdin=subprocess.DEVNULL)

    def test_sbatch_directives(self):
        with open(SBATCH, encoding="utf-8") as f:
            directives = re.findall(r"(?m)^#SBATCH\s+(\S+)", f.read())
        self.assertIn("--exclusive", directives)
        self.assertTrue(any(d.startswith("--array=") for d in directives), directives)

    def test_task_writes_its_evidence_under_its_label(self):
        cp = self.task(2, ABEV_UNSIGNED="1")
        self.assertEqual(cp.returncode, 0, cp.stdout + cp.stderr)
        self.assertIn("task 2 of array job 42", cp.stdout)
        ev = os.path.join("out", "42", "2-linux-arm")
        self.assertEqual(self.load(ev, "metadata.json")["host"]["label"], "linux-arm")
        self.assertEqual(self.load(ev, "result.json")["status"], "completed")
        self.assertTrue(os.path.isfile(self.path("out", "42", "2-linux-arm.tar.gz")))
        self.assertEqual(sorted(os.listdir(self.path("out", "42"))),
                         ["2-linux-arm", "2-linux-arm.tar.gz"])

    def test_signed_task(self):
        self.abev("keygen", "--out", self.path("k"), check=0)
        cp = self.task(1, ABEV_KEY=self.path("k.key"))
        self.assertEqual(cp.returncode, 0, cp.stdout + cp.stderr)
        for e in ("1-linux-x86", "1-linux-x86.tar.gz"):
            self.abev("verify", self.path("out", "42", e), "--pubkey", self.path("k.pub"),
                      check=0)

    def test_refusals(self):
        cases = [
            ("no signing choice", self.task(1), "ABEV_KEY"),
            ("no label for the task", self.task(3, ABEV_UNSIGNED="1"), "no label"),
            ("not an array task", self.task("", ABEV_UNSIGNED="1"), "sbatch --array"),
        ]
        for what, cp, says in cases:
            with self.subTest(what=what):
                self.assertEqual(cp.returncode, 2, cp.stdout + cp.stderr)
                self.assertIn(says, cp.stderr)
        self.assertFalse(os.path.exists(self.path("out", "42")))
        # A label abev refuses fails the task with abev's usage error.
        cp = self.task(1, labels="bad/label", ABEV_UNSIGNED="1")
        self.assertEqual(cp.returncode, 2, cp.stdout + cp.stderr)
        self.assertIn("--host-label", cp.stderr)


class Combine(AbevTestCase):
    def combine(self, *args):
        scratch = self.path("scratch")
        os.makedirs(scratch, exist_ok=True)
        e = dict(os.environ, ABEV=ABEV, TMPDIR=scratch)
        cp = subprocess.run(["sh", COMBINE, *args], capture_output=True, text=True, env=e,
                            cwd=self.tmp, timeout=120, stdin=subprocess.DEVNULL)
        self.assertEqual(os.listdir(scratch), [], "combine.sh left its scratch directory")
        return cp

    def evidence(self):
        """A signed run of the example plan: its directory and bundle."""
        self.abev("keygen", "--out", self.path("k"), check=0)
        self.abev("run", os.path.join(SRC, PLAN), "--out", self.path("ev"), "--key",
                  self.path("k.key"), "--host-label", "one", "--bundle",
                  self.path("ev.tar.gz"), check=0)
        return self.path("ev"), self.path("ev.tar.gz")

    def test_usage(self):
        for args in ([], ["--out"], ["--bogus", "x"], [self.path("missing")],
                     [self.path("missing.tar.gz")]):
            with self.subTest(args=args):
                cp = self.combine(*args)
                self.assertEqual(cp.returncode, 2, cp.stderr)
                self.assertTrue(cp.stderr)
        self.assertFalse(os.path.exists(self.path("combined.md")))

    def test_bundle_is_verified_and_unpacked(self):
        ev, bundle = self.evidence()
        cp = self.combine("--pubkey", self.path("k.pub"), bundle)
        self.assertEqual(cp.returncode, 0, cp.stderr)
        # One host: abev report renders that run's own report, byte for byte.
        with open(self.path("combined.md"), "rb") as f, \
                open(os.path.join(ev, "report.md"), "rb") as g:
            self.assertEqual(f.read(), g.read())

    def test_bundle_failing_verification_is_not_combined(self):
        _, bundle = self.evidence()
        self.abev("keygen", "--out", self.path("other"), check=0)
        cp = self.combine("--pubkey", self.path("other.pub"), "--out", "c.md", bundle)
        self.assertEqual(cp.returncode, 4, cp.stderr)
        self.assertIn("failed verification", cp.stderr)
        self.assertFalse(os.path.exists(self.path("c.md")))
