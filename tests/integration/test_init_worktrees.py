"""abev init --dotnet --baseline REF --candidate REF: each ref checked out as
a detached git worktree of its own beside the repository's top, so that the
two builds never share bin/ or obj/, and a plan whose variants run there.

A throwaway repository in the scratch directory holds a test project that is
no real .NET project: what is tested is the worktrees made and the plan
written, never dotnet itself (test_dotnet.py runs the real thing)."""
import os
import shutil
import subprocess
import unittest

from common import ABEV, AbevTestCase

PROJECT = "tests/Lib.Tests"
VARIANTS = ("baseline", "candidate")
DOTNET = ("--dotnet", "--project", PROJECT)


@unittest.skipUnless(shutil.which("git"), "git is not on PATH")
class TestInitWorktrees(AbevTestCase):
    def setUp(self):
        super().setUp()
        # git answers from this repository only, whatever the user's configuration.
        self.env = dict(os.environ, GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1",
                        GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.org",
                        GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.org",
                        LC_ALL="C")
        self.tmp = os.path.realpath(self.tmp)
        self.repo = self.path("repo")
        self.root = self.repo + "-abev"
        os.makedirs(os.path.join(self.repo, PROJECT))
        os.makedirs(os.path.join(self.repo, "src"))
        self.git("init", "-q", "-b", "main")
        # v1: the project file is Old.Tests; the candidate's renames it, so the plan's
        # assembly says whose project abev init read.
        self.write(PROJECT + "/Old.Tests.csproj", "<Project Sdk=\"Microsoft.NET.Sdk\"/>\n")
        self.write("src/version.txt", "1\n")
        self.git("add", "-A")
        self.git("commit", "-q", "-m", "one")
        self.git("tag", "v1")
        self.git("mv", PROJECT + "/Old.Tests.csproj", PROJECT + "/New.Tests.csproj")
        self.write("src/version.txt", "2\n")
        self.git("commit", "-q", "-am", "two")
        self.commits = [self.git("rev-parse", "v1"), self.git("rev-parse", "main")]

    def write(self, rel, text):
        with open(os.path.join(self.repo, rel), "w", encoding="utf-8") as f:
            f.write(text)

    def git(self, *args, cwd=None):
        cp = subprocess.run(["git", *args], cwd=cwd or self.repo, env=self.env,
                            capture_output=True, text=True)
        self.assertEqual(cp.returncode, 0, cp.stderr)
        return cp.stdout.strip()

    def init(self, *refs, cwd=None, out=None, check=0, extra=DOTNET):
        """abev init with extra and refs, run in the repository's src/ (the plan outside it)."""
        out = out or self.path("plan.json")
        cp = subprocess.run([ABEV, "init", *extra, *refs, "--out", out],
                            cwd=cwd or os.path.join(self.repo, "src"), env=self.env,
                            capture_output=True, text=True, stdin=subprocess.DEVNULL)
        self.assertEqual(cp.returncode, check, f"stdout:\n{cp.stdout}\nstderr:\n{cp.stderr}")
        return cp

    def worktrees(self):
        """{path: HEAD} of the repository's worktrees but its own."""
        out = self.git("worktree", "list", "--porcelain")
        found, path = {}, None
        for line in out.splitlines():
            if line.startswith("worktree "):
                path = line[len("worktree "):]
            elif line.startswith("HEAD ") and path != self.repo:
                found[path] = line[len("HEAD "):]
        return found

    def test_worktrees_and_plan(self):
        cp = self.init("--baseline", "v1", "--candidate", "main")
        dirs = [os.path.join(self.root, v) for v in VARIANTS]
        # Two detached worktrees, one at each commit, outside the repository's work tree.
        self.assertEqual(self.worktrees(), dict(zip(dirs, self.commits)))
        for d, commit, version in zip(dirs, self.commits, ("1\n", "2\n")):
            self.assertEqual(self.git("rev-parse", "HEAD", cwd=d), commit)
            # Detached: no branch of the user's is checked out there.
            self.assertEqual(subprocess.run(["git", "symbolic-ref", "-q", "HEAD"], cwd=d,
                                            env=self.env).returncode, 1)
            with open(os.path.join(d, "src", "version.txt"), encoding="utf-8") as f:
                self.assertEqual(f.read(), version)
        # The user's own checkout is left as it was.
        self.assertEqual(self.git("status", "--porcelain"), "")
        self.assertEqual(self.git("rev-parse", "HEAD"), self.commits[1])
        # What was made is said, with how to remove it.
        for d in dirs:
            self.assertIn(d, cp.stderr)
        self.assertEqual(cp.stderr.count("worktree remove"), 2, cp.stderr)

        plan = self.load("plan.json")
        self.assertEqual([v["name"] for v in plan["variants"]], list(VARIANTS))
        for v, d, commit in zip(plan["variants"], dirs, self.commits):
            # Its cwd: the project in its own worktree, absolute.
            self.assertEqual(v["cwd"], os.path.join(d, PROJECT))
            self.assertTrue(os.path.isdir(v["cwd"]))
            # Built once by its setup, in the environment the runs have.
            self.assertEqual(v["setup"], ["dotnet", "build", "-c", "Release"])
            self.assertEqual(v["env"]["MSBUILDDISABLENODEREUSE"], "1")
            self.assertEqual(v["command"][:3], ["dotnet", "test", "--no-build"])
            # The candidate's project file names the assembly, though src/ has none.
            self.assertEqual(v["assemblies"], ["bin/Release/net*/New.Tests.dll"])
            # versions.commit, run in the variant's cwd as abev runs it, is its commit.
            out = subprocess.run(plan["versions"]["commit"], cwd=v["cwd"], env=self.env,
                                 capture_output=True, text=True)
            self.assertEqual(out.stdout.strip(), commit)
            self.assertIn(commit, plan["description"])
        self.assertEqual(plan["versions"]["commit"], ["git", "rev-parse", "HEAD"])
        self.assertIn("v1", plan["description"])
        self.assertIn("main", plan["description"])
        # From where init ran, the plan's cwds are there: a dry run names no cwd (only
        # the assemblies the setup has not built yet, and dotnet where it is missing).
        dry = subprocess.run([ABEV, "run", self.path("plan.json"), "--dry-run"],
                             cwd=os.path.join(self.repo, "src"), env=self.env,
                             capture_output=True, text=True)
        self.assertNotIn(".cwd", dry.stderr)
        self.assertIn("variants[1].assemblies[0]", dry.stderr)

    def test_rerun_reuses(self):
        self.init("--baseline", "v1", "--candidate", "main")
        # Something of the first build in a worktree: a rerun must not lose it.
        kept = os.path.join(self.root, "candidate", PROJECT, "bin", "kept")
        os.makedirs(os.path.dirname(kept))
        with open(kept, "w", encoding="utf-8") as f:
            f.write("build\n")
        cp = self.init("--baseline", self.commits[0], "--candidate", "HEAD",
                       out=self.path("again.json"))
        self.assertEqual(cp.stderr.count("reused"), 2, cp.stderr)
        self.assertTrue(os.path.exists(kept))
        self.assertEqual(len(self.worktrees()), 2)
        self.assertEqual([v["cwd"] for v in self.load("again.json")["variants"]],
                         [v["cwd"] for v in self.load("plan.json")["variants"]])

    def assert_refused(self, *refs, cwd=None, extra=DOTNET, names=()):
        """init refused (exit 2) naming each of names, with no plan and no worktree made."""
        before = self.worktrees()
        cp = self.init(*refs, cwd=cwd, out=self.path("refused.json"), check=2, extra=extra)
        for n in names:
            self.assertIn(n, cp.stderr)
        self.assertFalse(os.path.exists(self.path("refused.json")))
        self.assertEqual(self.worktrees(), before)
        return cp

    def test_refusals(self):
        # One ref alone names the other.
        self.assert_refused("--baseline", "v1", names=["--candidate"])
        self.assert_refused("--candidate", "main", names=["--baseline"])
        # Not without --dotnet.
        self.assert_refused("--baseline", "v1", "--candidate", "main", extra=DOTNET[1:],
                            names=["--dotnet"])
        # A ref git does not know: git's own message is quoted.
        self.assert_refused("--baseline", "no-such-ref", "--candidate", "main",
                            names=["no-such-ref", "Needed a single revision"])
        # A ref that begins with '-' never reaches git as an option.
        for bad in ("-q", "--output=" + self.path("x"), "--all"):
            self.assert_refused("--baseline", bad, "--candidate", "main", names=[bad])
        self.assertFalse(os.path.exists(self.path("x")))
        # A project directory one commit lacks.
        self.assert_refused("--baseline", "v1", "--candidate", "main",
                            extra=("--dotnet", "--project", "tests/Nope"), names=["tests/Nope"])
        self.assertFalse(os.path.exists(self.root))
        # Outside a work tree.
        os.makedirs(self.path("elsewhere"))
        self.assert_refused("--baseline", "v1", "--candidate", "main",
                            cwd=self.path("elsewhere"), names=["work tree"])

    def test_foreign_directory_refused_untouched(self):
        # The candidate's place is taken by something else: nothing is made, not even
        # the baseline's worktree, and what is there stays as it was.
        taken = os.path.join(self.root, "candidate")
        os.makedirs(taken)
        with open(os.path.join(taken, "mine"), "w", encoding="utf-8") as f:
            f.write("precious\n")
        self.assert_refused("--baseline", "v1", "--candidate", "main", names=[taken])
        self.assertEqual(os.listdir(taken), ["mine"])
        with open(os.path.join(taken, "mine"), encoding="utf-8") as f:
            self.assertEqual(f.read(), "precious\n")
        self.assertFalse(os.path.exists(os.path.join(self.root, "baseline")))

    def test_worktree_at_another_commit_refused(self):
        self.init("--baseline", "v1", "--candidate", "main")
        # Swapped: each directory is a worktree of the repository, at the other commit.
        self.assert_refused("--baseline", "main", "--candidate", "v1",
                            names=[os.path.join(self.root, "baseline")])
        self.assertEqual(self.worktrees(),
                         dict(zip([os.path.join(self.root, v) for v in VARIANTS],
                                  self.commits)))


if __name__ == "__main__":
    unittest.main()
