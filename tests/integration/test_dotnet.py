"""Real `dotnet test` under abev (`make check-dotnet`, which builds the
xunit suite of tests/dotnet/Suite twice into build/dotnet/ first: `base`
as it is, `cand` with one test compiled out). abev's counts equal the
console summary of `dotnet test` itself, a skipped test and a [Theory]
are counted right, the BENCH line a test prints lands in a metric, the
assemblies are hashed as sha256sum hashes them, a candidate that quietly
loses a test is failed by the test-set guard, the runtime figures abev's
startup hook reports of the test host (dotnet_runtime) match what the
tests of tests/dotnet/Runtime are known to do, and nothing is left running.
In each of xUnit, NUnit, MSTest and MSTest on Microsoft.Testing.Platform
(the twins of tests/dotnet/Twins): a candidate that drops one of two
same-named tests is rejected naming it with its class, a failing test is
rejected named with its outcome and message, a crash fails its run, the
test host's own peak memory is its figure in the per-process list (on MTP
the test program, not the controller it starts), and with dotnet_runtime
a test allocating 100 MiB shows 100 MiB more allocated in the test host.

Skipped unless ABEV_DOTNET_FIXTURES names the built fixtures and dotnet is
on PATH: `make check` does not build them."""
import fnmatch
import glob
import json
import os
import re
import shutil
import subprocess
import threading
import unittest

from common import ABEV, AbevTestCase, check_foreign_wait, logs_made
from test_run import procs_with_marker

FIX = os.environ.get("ABEV_DOTNET_FIXTURES", "")
DOTNET = shutil.which("dotnet")
QUIET = {"DOTNET_CLI_TELEMETRY_OPTOUT": "1", "DOTNET_NOLOGO": "1",
         "DOTNET_SKIP_FIRST_TIME_EXPERIENCE": "1", "MSBUILDDISABLENODEREUSE": "1",
         "DOTNET_CLI_USE_MSBUILD_SERVER": "0"}
# The load limits set aside: these tests check what dotnet test brings, on a machine
# that may be busy with other work.
LOAD_ASIDE = {"max_cpu_wait_pct": 100, "max_foreign_cpu": 64, "max_repeats": 0}
# What the console prints at the end: "Passed!  - Failed: 0, Passed: 6, Skipped: 1, Total: 7".
SUMMARY = re.compile(r"Failed:\s*(\d+), Passed:\s*(\d+), Skipped:\s*(\d+), Total:\s*(\d+)")


def session_left(procs):
    """The sessions (one per process started) of procs that still have a
    live member: a test host outlives its muxer's SIGKILL."""
    sids = {p.pid for p in procs}
    left = set()
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat", encoding="utf-8", errors="replace") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        # After ")": state, ppid, pgrp, session.
        if fields[0] != "Z" and int(fields[3]) in sids:
            left.add(int(fields[3]))
    return left


def sha256sum(path):
    out = subprocess.run(["sha256sum", path], capture_output=True, text=True, check=True)
    return out.stdout.split()[0]


@unittest.skipUnless(FIX and DOTNET, "run by make check-dotnet (needs dotnet and the fixtures "
                     "it builds into build/dotnet/)")
class DotnetTest(AbevTestCase):
    def variant(self, name, build):
        return {
            "name": name,
            "cwd": os.path.join(FIX, build, "Suite"),
            "command": ["dotnet", "test", "--no-build", "-c", "Release",
                        "--logger", "trx;LogFileName={run_dir}/suite.trx"],
            "env": QUIET,
            "assemblies": ["bin/Release/net*/Suite.dll"],
        }

    def plan(self, variants, runs, warmups=0, load=None):
        return {
            "schema": "abev.plan/1",
            "name": "dotnet",
            "variants": variants,
            "schedule": {"warmups": warmups, "runs": runs, "order": "alternate", "seed": 1,
                         "gap_seconds": 0, "timeout_seconds": 300},
            "results": {"files": "{run_dir}/*.trx", "min_executed": 5},
            "metrics": [{"name": "sum", "source": "results", "test": "SuiteTests.SumBench",
                         "unit": "ms", "pattern": "BENCH sum_ms=([0-9.]+)"}],
            "versions": {"dotnet": ["dotnet", "--version"]},
            # Set aside unless a test is about the load guard itself.
            "load": load or LOAD_ASIDE,
        }

    def tearDown(self):
        # Nothing of the fixtures' dotnet test may outlive abev.
        left = procs_with_marker(FIX)
        for pid in left:
            try:
                os.kill(pid, 9)
            except OSError:
                pass
        super().tearDown()
        self.assertEqual(left, [], "processes left running after abev")

    def test_counts_metrics_assemblies_as_dotnet_test_reports_them(self):
        plan = self.plan([self.variant("old", "base"), self.variant("new", "base")],
                         runs=3, warmups=1)
        cp, res = self.run_plan(plan, None, timeout=900)
        self.assertIn(cp.returncode, (0, 6), cp.stderr)
        invs = res["invocations"]
        self.assertEqual(len(invs), 8)
        for inv in invs:
            self.assertEqual(inv["status"], "ok", inv.get("reason"))
            with open(self.path("ev", inv["dir"], "test.log"), encoding="utf-8") as f:
                console = SUMMARY.search(f.read())
            self.assertIsNotNone(console, inv["dir"])
            failed, passed, skipped, total = map(int, console.groups())
            t = inv["tests"]
            # dotnet test's own summary: 7 results (3 of them the [Theory]), 1 skipped.
            self.assertEqual((t["total"], t["passed"], t["failed"], t["skipped"]),
                             (total, passed, failed, skipped))
            self.assertEqual((total, passed, skipped), (7, 6, 1))
            self.assertEqual(t["executed"], 6)
            # Each executed test's duration as the TRX gives it (the [Theory] case by case).
            self.assertEqual(len(inv["test_times"]), 6)
            self.assertTrue(all(ms >= 0 for _, ms in inv["test_times"]))
            if inv["phase"] == "run":
                self.assertGreater(inv["metrics"]["sum"], 0)
        md = self.load("ev", "metadata.json")
        version = subprocess.run(["dotnet", "--version"], capture_output=True, text=True,
                                 env={**os.environ, **QUIET}).stdout.strip()
        dll = glob.glob(os.path.join(FIX, "base", "Suite", "bin", "Release", "net*",
                                     "Suite.dll"))[0]
        for v in md["variants"]:
            self.assertEqual(v["versions"]["dotnet"]["output"].strip(), version)
            files = v["assemblies"][0]["files"]
            self.assertEqual(len(files), 1)
            self.assertEqual(files[0]["sha256"], sha256sum(dll))
            self.assertEqual(v["environment"]["MSBUILDDISABLENODEREUSE"], "1")
        ver = self.abev("verify", self.path("ev"))
        self.assertEqual(ver.returncode, 7, ver.stdout)
        # The report's per-test changes come from those durations.
        self.assertEqual(res["comparison"]["tests_timed"], 6)

    def test_the_test_hosts_own_peak_memory(self):
        # wait4() gives the tree's largest peak RSS, the dotnet CLI's; the
        # per-process list gives the test host its own (issue 31 §3), and the
        # metrics of `init --dotnet` take it by name.
        plan = self.plan([self.variant("old", "base"), self.variant("new", "base")], runs=1)
        plan["metrics"] += [
            {"name": "host_rss", "source": "process", "field": "max_rss", "process": "testhost*"},
            {"name": "host_cpu", "source": "process", "field": "cpu", "process": "testhost*"}]
        cp, res = self.run_plan(plan, None, timeout=900)
        self.assertIn(cp.returncode, (0, 6), cp.stderr)
        for inv in res["invocations"]:
            procs = inv["processes"]
            hosts = [p for p in procs["list"]
                     if p["cmdline"] and "testhost.dll" in p["cmdline"]]
            self.assertEqual(len(hosts), 1, procs)
            host = hosts[0]
            # Started by the dotnet CLI, the root of the tree.
            self.assertIn(host["ppid"], [p["pid"] for p in procs["list"]])
            self.assertGreater(host["peak_rss_bytes"], 0)
            self.assertEqual(inv["metrics"]["host_rss"], host["peak_rss_bytes"])
            self.assertNotEqual(inv["metrics"]["host_rss"], inv["max_rss_bytes"])
            self.assertLess(inv["metrics"]["host_rss"], inv["max_rss_bytes"])
            self.assertGreater(inv["metrics"]["host_cpu"], 0)
            self.assertLess(inv["metrics"]["host_cpu"], inv["cpu_ns"] / 1e6)

    def test_the_clrs_own_threads_are_not_contention(self):
        # abev's default load limits (10 % of a run waiting on CPUs others held).
        # The CLR's JIT, GC and thread-pool threads wait on each other (up to
        # about 11 % of a run here): that wait is recorded but not held against
        # the run. On a quiet machine no run is discarded; on a busy one a run is
        # discarded (or kept marked loaded) only for what other processes held of
        # its CPUs.
        plan = self.plan([self.variant("old", "base"), self.variant("new", "base")], runs=3,
                         load={"max_repeats": 2})
        cp, res = self.run_plan(plan, None, timeout=900)
        self.assertIn(cp.returncode, (0, 1, 6), cp.stderr)
        invs = res["invocations"]
        if invs[0]["cpu_wait_ns"] is None or invs[0]["foreign_wait_ns"] is None:
            self.skipTest(f"no CPU wait or foreign share measured here: "
                          f"{invs[0]['cpu_wait_note']}")
        for inv in invs:
            self.assertEqual(inv["max_cpu_wait_pct"], 10)
            # Bounded by what other processes ran on its CPUs (whole ticks, or
            # the nanosecond count where the machine keeps one); over the
            # limit, discarded or kept marked loaded.
            check_foreign_wait(self, inv)
        quiet = all(i["foreign_busy_ns"] <= i["wall_ns"] * 0.10 for i in invs)
        if quiet:
            self.assertEqual([i["status"] for i in invs], ["ok"] * 6,
                             [(i["status"], i["reason"]) for i in invs])
            # The own wait is there, and it is not what the guard judged.
            self.assertTrue(any(i["cpu_wait_ns"] > i["foreign_wait_ns"] for i in invs))

    def test_init_plan_of_an_mtp_project_reads_its_trx(self):
        # tests/dotnet/Mtp: MSTest on Microsoft.Testing.Platform, its global.json naming
        # MTP as dotnet test's runner, where `--logger trx` does not exist. abev init
        # reads that and writes --report-trx; the TRX counts are the console's.
        mtp = os.path.join(FIX, "mtp")
        cp = subprocess.run([ABEV, "init", "--dotnet", "--project", "Mtp", "--package",
                             "MSTest.TestFramework", "--out", self.path("init.json")],
                            cwd=mtp, capture_output=True, text=True, timeout=60)
        self.assertEqual(cp.returncode, 0, cp.stderr)
        plan = self.load("init.json")
        command = plan["variants"][0]["command"]
        self.assertIn("--report-trx", command)
        self.assertNotIn("--logger", command)
        for v in plan["variants"]:
            v["cwd"] = os.path.join(mtp, "Mtp")
        # One round: the TRX is what is checked, not its gates, which one round
        # could never decide (a plan asking that is refused).
        self.assertEqual((plan["schedule"]["until"], plan["schedule"]["max_rounds"]),
                         ("decided", 32))
        for key in ("until", "max_rounds"):
            del plan["schedule"][key]
        del plan["gates"]
        plan["schedule"].update({"warmups": 0, "runs": 1, "gap_seconds": 0})
        plan["load"] = LOAD_ASIDE
        cp, res = self.run_plan(plan, None, timeout=600)
        self.assertIn(cp.returncode, (0, 6), cp.stderr)
        invs = res["invocations"]
        self.assertEqual(len(invs), 2)
        # MTP's summary: "total: 5", "failed: 0", "succeeded: 4", "skipped: 1".
        for inv in invs:
            self.assertEqual(inv["status"], "ok", inv.get("reason"))
            with open(self.path("ev", inv["dir"], "test.log"), encoding="utf-8") as f:
                log = f.read()
            console = {k: int(n) for k, n in
                       re.findall(r"^\s*(total|failed|succeeded|skipped): (\d+)$", log, re.M)}
            t = inv["tests"]
            self.assertEqual((t["total"], t["passed"], t["failed"], t["skipped"]),
                             (console["total"], console["succeeded"], console["failed"],
                              console["skipped"]))
            self.assertEqual((t["total"], t["skipped"], t["executed"]), (5, 1, 4))
            # On MTP the tests run in the project's own program: its figures are
            # the test host's (init names "Mtp*", not "testhost*").
            self.assertGreater(inv["metrics"]["testhost_max_rss"], 0)
            self.assertLessEqual(inv["metrics"]["testhost_max_rss"], inv["max_rss_bytes"])
            self.assertGreater(inv["metrics"]["allocated"], 0)
        # Recorded: the runtimes, the test framework at the version restored, and
        # only the test assembly and the named package's dll hashed.
        md = self.load("ev", "metadata.json")
        runtimes = subprocess.run(["dotnet", "--list-runtimes"], capture_output=True,
                                  text=True, env={**os.environ, **QUIET}).stdout.strip()
        out = os.path.join(mtp, "Mtp", "bin", "Release", "net10.0")
        for v in md["variants"]:
            versions = v["versions"]
            self.assertEqual(versions["runtimes"]["output"].strip(), runtimes)
            packages = versions["packages"]["output"].splitlines()
            self.assertIn("MSTest.TestFramework 4.5.3", packages)
            self.assertIn("Microsoft.Testing.Extensions.TrxReport 2.5.3", packages)
            files = [f for a in v["assemblies"] for f in a["files"]]
            self.assertEqual(sorted(os.path.basename(f["path"]) for f in files),
                             ["MSTest.TestFramework.dll", "Mtp.dll"])
            for f in files:
                self.assertEqual(f["sha256"],
                                 sha256sum(os.path.join(out, os.path.basename(f["path"]))))

    def test_a_candidate_that_loses_a_test_fails_the_test_set_guard(self):
        plan = self.plan([self.variant("baseline", "base"), self.variant("candidate", "cand")],
                         runs=2)
        cp, res = self.run_plan(plan, None, timeout=900)
        self.assertNotEqual(cp.returncode, 0, cp.stdout)
        self.assertEqual(res["status"], "failed")
        cand = [i for i in res["invocations"] if i["variant"] == "candidate"]
        self.assertEqual(len(cand), 2)
        for inv in cand:
            self.assertEqual(inv["status"], "failed")
            self.assertIn("SuiteTests.OnlyInTheBaseline", inv["reason"])
            self.assertEqual(inv["tests"]["total"], 6)
        base = [i for i in res["invocations"] if i["variant"] == "baseline"]
        self.assertEqual([i["status"] for i in base], ["ok", "ok"])
        # Not accepted, and the decision says which run, which guard, which test.
        cmp = res["comparison"]
        self.assertEqual(cmp["decision"], "rejected")
        # Exit 1: an invocation failed a guard, which docs/exit-codes.md puts before exit 5.
        self.assertEqual(cp.returncode, 1, cp.stdout)
        self.assertEqual(len(cmp["blocking"]), 2)
        first = cmp["blocking"][0]
        self.assertEqual((first["code"], first["variant"], first["round"], first["guard"]),
                         ("test_guard_failed", "candidate", 1, "test_set"))
        self.assertIn("SuiteTests.OnlyInTheBaseline", first["guard_reason"])
        self.assertIn("decision: rejected: candidate run 1 failed the test_set guard",
                      cp.stdout)
        junit = self.abev("export", self.path("ev"), "--format", "junit")
        # The two runs that failed their test guard, and the candidate with no counted run.
        self.assertIn('tests="3" failures="3"', junit.stdout)
        self.assertIn('classname="abev.runs.candidate" name="counted runs"', junit.stdout)
        self.assertIn("SuiteTests.OnlyInTheBaseline", junit.stdout)
        with open(self.path("ev", "report.md"), encoding="utf-8") as f:
            report = f.read()
        self.assertIn("**Decision: rejected: candidate run 1 failed the test\\_set guard",
                      report)

    def test_every_framework_names_rejects_and_measures_its_test_host(self):
        # The same five tests in xUnit, NUnit, MSTest and MSTest on Microsoft.Testing.Platform
        # (tests/dotnet/Twins), one plan each: a candidate that drops
        # OtherTests.RoundTrip while YamlTests.RoundTrip stays, a failing test and a
        # crashed test host, each named by its class; the test host's own peak
        # memory; and, with abev's startup hook, a test allocating 100 MiB more.
        for fw, host in (("Xunit", "testhost*"), ("NUnit", "testhost*"),
                         ("MSTest", "testhost*"), ("Mtp", "Twins.Mtp*")):
            with self.subTest(framework=fw):
                self.check_twins(fw, host)

    def check_twins(self, fw, host):
        """Runs the twin fw under one plan; host: the glob of the process its tests
        run in (VSTest's testhost, or on MTP the test project's own program)."""
        if fw == "Mtp":
            trx = ["--report-trx", "--report-trx-filename", "twins.trx",
                   "--results-directory", "{run_dir}"]
        else:
            trx = ["--logger", "trx;LogFileName={run_dir}/twins.trx"]

        def twin(name, build, env=None):
            return {"name": name, "cwd": os.path.join(FIX, "twins", build, fw),
                    "command": ["dotnet", "test", "--no-build", "-c", "Release", *trx],
                    "env": {**QUIET, **(env or {})},
                    "assemblies": [f"bin/Release/net*/Twins.{fw}.dll"]}
        plan = self.plan([twin("base", "base"), twin("cand", "cand"),
                          twin("fail", "base", {"TWINS_FAIL": "1"}),
                          twin("crash", "base", {"TWINS_CRASH": "1"}),
                          twin("alloc", "base", {"TWINS_ALLOC_MB": "100"})], runs=1)
        plan["dotnet_runtime"] = True
        plan["metrics"] = [
            {"name": "host_rss", "source": "process", "field": "max_rss", "process": host},
            {"name": "allocated", "source": "dotnet", "field": "allocated_bytes",
             "process": host}]
        plan["results"]["min_executed"] = 1
        cp, res = self.run_plan(plan, None, out=f"ev-{fw}", timeout=900)
        by = {i["variant"]: i for i in res["invocations"]}
        guard = lambda v, n: [g for g in by[v]["guards"]  # noqa: E731
                              if g["guard"] == n][0]
        for v in ("base", "alloc"):
            self.assertEqual(by[v]["status"], "ok", by[v]["reason"])
            self.assertEqual(by[v]["tests"]["executed"], 5)
        # Dropped: the one of the two RoundTrip tests, by its class.
        g = guard("cand", "test_set")
        self.assertEqual(g["verdict"], "fail", g)
        self.assertIn("missing 1: 'Twins.OtherTests.RoundTrip'", g["reason"])
        # Failed: named, with its outcome and message, and rejected.
        g = guard("fail", "tests_passed")
        self.assertEqual(g["verdict"], "fail", g)
        self.assertIn("Twins.OtherTests.Fails (Failed: ", g["reason"])
        self.assertIn("expected 1, got 2", g["reason"])
        failure = by["fail"]["test_failures"][0]
        self.assertEqual((failure["name"], failure["outcome"]),
                         ("Twins.OtherTests.Fails", "Failed"))
        self.assertIn("expected 1, got 2", failure["message"])
        # Crashed: dotnet test exits non-zero and the run fails. Where a TRX was
        # written, the run says what its RunInfo says: the test host crashed (MTP's
        # controller, which writes it, is at times brought down with the host).
        self.assertEqual(by["crash"]["status"], "failed")
        self.assertEqual(guard("crash", "exit_code")["verdict"], "fail")
        self.assertLess(by["crash"]["tests"]["passed"], 5)
        if not guard("crash", "min_executed")["reason"].startswith("no result file"):
            self.assertIn("crashed", by["crash"]["reason"])
        cmp = res["comparison"]
        self.assertEqual(cmp["decision"], "rejected")
        blocking = [(b["code"], b["variant"], b["round"], b["guard"]) for b in cmp["blocking"]]
        self.assertIn(("test_guard_failed", "cand", 1, "test_set"), blocking)
        self.assertIn(("test_guard_failed", "fail", 1, "tests_passed"), blocking)
        self.assertNotEqual(cp.returncode, 0)
        for v in ("base", "alloc"):
            self.check_host_rss(by[v], host)
        # The startup hook's figures of the test host: 100 MiB more than the
        # same host allocating nothing, within 5 %.
        m = {v: by[v]["metrics"] for v in ("base", "alloc")}
        self.assertGreater(m["base"]["allocated"], 0, m)
        extra = m["alloc"]["allocated"] - m["base"]["allocated"]
        self.assertLess(abs(extra - (100 << 20)), 0.05 * (100 << 20), m)
        # From abev's hook, which the sealed metadata names.
        self.assertEqual(self.load(f"ev-{fw}", "metadata.json")["dotnet_hook"]["added_to"],
                         "DOTNET_STARTUP_HOOKS")

    def check_host_rss(self, inv, host):
        """The metric host_rss of inv is the test host's own peak RSS: that of
        the one process the glob host names in the per-process list (by its
        command name or an argument's last path component, as abev matches)
        and that started none it names, not the tree's, whose largest is the
        dotnet CLI's. On MTP the glob names two: the test host controller
        (--report-trx's, which watches for a crash) and the test host it starts."""
        def named(p):
            words = (p["cmdline"] or "").split(" ")
            return (fnmatch.fnmatchcase(p["comm"] or "", host) or
                    any(fnmatch.fnmatchcase(w.rsplit("/", 1)[-1], host) for w in words if w))
        procs = inv["processes"]
        all_named = [p for p in procs["list"] if named(p)]
        parents = {p["ppid"] for p in all_named}
        hosts = [p for p in all_named if p["pid"] not in parents]
        self.assertEqual(len(hosts), 1, procs)
        self.assertEqual(len(all_named), 2 if host != "testhost*" else 1, procs)
        self.assertGreater(hosts[0]["peak_rss_bytes"], 0)
        self.assertEqual(inv["metrics"]["host_rss"], hosts[0]["peak_rss_bytes"])
        self.assertLess(inv["metrics"]["host_rss"], inv["max_rss_bytes"])

    def test_the_worked_example_decides_and_verifies(self):
        # examples/dotnet-sdk-upgrade/plan.json as make demo-dotnet runs it,
        # built by check-dotnet.sh, with five rounds instead of six: the fewest
        # its four gates can decide, each at 1 - 5 % / 4 (Bonferroni).
        src = os.environ.get("ABEV_SRC", "")
        with open(os.path.join(src, "examples", "dotnet-sdk-upgrade", "plan.json")) as f:
            plan = json.load(f)
        for v in plan["variants"]:
            v["cwd"] = os.path.normpath(os.path.join(src, "examples", "dotnet-sdk-upgrade",
                                                     v["cwd"]))
            if not os.path.isdir(v["cwd"]):
                self.skipTest(f"the example is not built ({v['cwd']})")
        plan["schedule"].update({"warmups": 0, "runs": 5, "gap_seconds": 0})
        # What is checked is the decision and the evidence, not the machine's load
        # (a shared CI machine may be busy): nothing is discarded.
        plan["load"] = LOAD_ASIDE
        self.abev("keygen", "--out", self.path("k"), check=0)
        cp, res = self.run_plan(plan, None, "--key", self.path("k.key"), timeout=900)
        self.assertIn(cp.returncode, (0, 5, 6), cp.stderr)
        self.assertIn(res["comparison"]["decision"], ("accepted", "rejected", "inconclusive"))
        counted = [i for i in res["invocations"] if i["status"] != "discarded"]
        self.assertEqual(len(counted), 10)
        for inv in counted:
            self.assertEqual(inv["status"], "ok", inv.get("reason"))
            self.assertEqual((inv["tests"]["total"], inv["tests"]["executed"]), (8, 8))
            self.assertGreater(inv["metrics"]["parallel reads"], 0)
            # The test host's own figures, and what its runtime reported.
            m = inv["metrics"]
            self.assertGreater(m["test host memory"], 0)
            self.assertLess(m["test host memory"], inv["max_rss_bytes"])
            self.assertGreater(m["test host cpu"], 0)
            self.assertGreater(m["allocated"], 0)
            self.assertGreaterEqual(m["lock contentions"], 0)
        md = self.load("ev", "metadata.json")
        self.assertEqual(md["dotnet_hook"]["added_to"], "DOTNET_STARTUP_HOOKS")
        hashes = [v["assemblies"][0]["files"] for v in md["variants"]]
        self.assertNotEqual(hashes[0], hashes[1])
        self.assertEqual([v["versions"]["cache"]["output"].strip() for v in md["variants"]],
                         ['"Cache/1.0.0"', '"Cache/2.0.0"'])
        ver = self.abev("verify", self.path("ev"), "--pubkey", self.path("k.pub"))
        self.assertEqual(ver.returncode, 0, ver.stdout)
        sums = subprocess.run(["sha256sum", "--quiet", "-c", "SHA256"], cwd=self.path("ev"),
                              capture_output=True, text=True)
        self.assertEqual(sums.returncode, 0, sums.stdout + sums.stderr)

    def test_failures_crashes_and_hangs_are_read_as_dotnet_test_reports_them(self):
        def crash_variant(name, env, *extra):
            return {"name": name, "cwd": os.path.join(FIX, "crash", "Crash"),
                    "command": ["dotnet", "test", "--no-build", "-c", "Release", *extra,
                                "--logger", "trx;LogFileName={run_dir}/crash.trx"],
                    "env": {**QUIET, **env}}
        plan = self.plan([crash_variant("ok", {}), crash_variant("fail", {"FAIL": "1"}),
                          crash_variant("crash", {"CRASH": "1"}),
                          crash_variant("hang", {"HANG": "1"}, "--blame-hang-timeout", "5s")],
                         runs=1)
        plan["metrics"] = []
        plan["results"]["min_executed"] = 1
        cp, res = self.run_plan(plan, None, timeout=900)
        by = {i["variant"]: i for i in res["invocations"]}
        consoles = {}
        for name, inv in by.items():
            consoles[name] = ""
            # A stream that printed nothing has no log (made at its first byte).
            for log in logs_made(inv):
                with open(self.path("ev", inv["dir"], log), encoding="utf-8") as f:
                    consoles[name] += f.read()
        t = lambda n: (by[n]["tests"]["total"], by[n]["tests"]["passed"],  # noqa: E731
                       by[n]["tests"]["failed"])
        self.assertEqual(by["ok"]["status"], "ok")
        self.assertEqual(t("ok"), (4, 4, 0))
        # A failed assertion: the console's counts, and dotnet test's exit code 1.
        self.assertEqual(by["fail"]["status"], "failed")
        self.assertEqual(by["fail"]["exit_code"], 1)
        f, p, s, total = map(int, SUMMARY.search(consoles["fail"]).groups())
        self.assertEqual(t("fail"), (total, p, f))
        self.assertEqual(t("fail"), (4, 3, 1))
        # The failing test by its class, its outcome and its message's first line.
        passed = [g for g in by["fail"]["guards"] if g["guard"] == "tests_passed"][0]
        self.assertEqual(passed["verdict"], "fail")
        self.assertEqual(by["fail"]["test_failures"][0]["name"], "CrashTests.D_Fails")
        self.assertEqual(by["fail"]["test_failures"][0]["outcome"], "Failed")
        self.assertIn("Assert.Equal() Failure", by["fail"]["test_failures"][0]["message"])
        self.assertIn("CrashTests.D_Fails (Failed: Assert.Equal() Failure", passed["reason"])
        self.assertEqual(res["comparison"]["decision"], "rejected")
        # A crashed test host: the console says "Test Run Aborted" and counts
        # nothing; the TRX holds no result; the run fails, and says why.
        self.assertIn("Test Run Aborted", consoles["crash"])
        self.assertEqual(by["crash"]["status"], "failed")
        self.assertEqual(by["crash"]["tests"]["total"], 0)
        self.assertIn("exit", by["crash"]["reason"])
        # ... in dotnet's words: the first line of the TRX's RunInfo, in the
        # run's reason and the min_executed guard's, not "0 of 0 executed".
        crashed = ("test run aborted: The active test run was aborted. Reason: Test host "
                   "process crashed")
        self.assertIn(crashed, by["crash"]["reason"])
        executed = [g for g in by["crash"]["guards"] if g["guard"] == "min_executed"][0]
        self.assertEqual(executed["verdict"], "fail")
        self.assertTrue(executed["reason"].startswith(crashed), executed["reason"])
        self.assertNotIn("at System.Environment", executed["reason"])
        # A hang stopped by --blame-hang-timeout: the tests that finished are
        # in the TRX, the rest are missing, and the test set names them.
        self.assertEqual(by["hang"]["status"], "failed")
        self.assertLess(by["hang"]["tests"]["total"], 4)
        self.assertEqual(by["hang"]["exit_code"], 1)
        sets = [g for g in by["hang"]["guards"] if g["guard"] == "test_set"]
        self.assertEqual([g["verdict"] for g in sets], ["fail"], by["hang"]["guards"])
        self.assertIn("CrashTests.C_Hangs", sets[0]["reason"])

    def test_the_runtime_figures_are_what_the_tests_did(self):
        # One build of tests/dotnet/Runtime, steered by the environment: nothing,
        # 100 MiB of small arrays under workstation and under server GC, and a
        # lock another thread waits on three times. Figures of the test host only
        # (the dotnet CLI and vstest.console write theirs too).
        def variant(name, env):
            return {"name": name, "cwd": os.path.join(FIX, "runtime", "Runtime"),
                    "command": ["dotnet", "test", "--no-build", "-c", "Release",
                                "--logger", "trx;LogFileName={run_dir}/rt.trx"],
                    "env": {**QUIET, **env}}
        plan = self.plan([variant("none", {}),
                          variant("alloc", {"ABEV_ALLOC_MB": "100", "DOTNET_gcServer": "0"}),
                          # Without DATAS (.NET 9+'s default under server GC), which
                          # starts server GC on one heap with a small gen0 budget that it
                          # grows by the pause time it sees: that is load-dependent.
                          variant("server", {"ABEV_ALLOC_MB": "100", "DOTNET_gcServer": "1",
                                             "DOTNET_GCDynamicAdaptationMode": "0"}),
                          variant("locks", {"ABEV_CONTEND": "3"})], runs=1)
        plan["dotnet_runtime"] = True
        plan["results"]["min_executed"] = 2
        plan["metrics"] = [{"name": n, "source": "dotnet", "field": f, "process": "testhost*"}
                           for n, f in (("allocated", "allocated_bytes"), ("gen0", "gc_gen0"),
                                        ("locks", "lock_contentions"))]
        plan["metrics"].append({"name": "all jit", "source": "dotnet", "field": "jit_methods"})
        cp, res = self.run_plan(plan, None, timeout=900)
        by = {i["variant"]: i for i in res["invocations"]}
        for inv in by.values():
            self.assertEqual(inv["status"], "ok", inv.get("reason"))
        m = {name: inv["metrics"] for name, inv in by.items()}
        # 100 MiB more than the same test host allocating nothing, within 5 %.
        extra = m["alloc"]["allocated"] - m["none"]["allocated"]
        self.assertLess(abs(extra - (100 << 20)), 0.05 * (100 << 20), m)
        self.assertLess(abs(m["server"]["allocated"] - m["none"]["allocated"] - (100 << 20)),
                        0.05 * (100 << 20), m)
        # Server GC's larger gen0 budget: fewer gen0 collections for the same work.
        self.assertGreater(m["alloc"]["gen0"], m["none"]["gen0"])
        self.assertLess(m["server"]["gen0"], m["alloc"]["gen0"], m)
        # Each of the three rounds made a thread wait on a held lock.
        self.assertGreaterEqual(m["locks"]["locks"], 3, m)
        # Without a process glob, every .NET process of the run: more than the host alone.
        files = glob.glob(self.path("ev", by["none"]["dir"], "dotnet-*.json"))
        self.assertGreater(len(files), 1)
        procs = [json.load(open(f, encoding="utf-8")) for f in files]
        self.assertEqual(m["none"]["all jit"], sum(p["jit_methods"] for p in procs))
        self.assertIn("testhost", [p["process"] for p in procs])
        # The hook abev added, and its hash, are in metadata.json.
        md = self.load("ev", "metadata.json")
        hook = md["dotnet_hook"]
        self.assertEqual(hook["added_to"], "DOTNET_STARTUP_HOOKS")
        self.assertEqual(hook["sha256"], sha256sum(hook["path"]))
        for v in md["variants"]:
            self.assertEqual(v["environment"]["DOTNET_STARTUP_HOOKS"], hook["path"])
        # The report shows the figures per variant.
        with open(self.path("ev", "report.md"), encoding="utf-8") as f:
            self.assertIn("allocated", f.read())

    def test_the_init_starter_runs_real_dotnet_test(self):
        # Written from the fixtures' directory, where --project finds the project.
        cp = subprocess.run([ABEV, "init", "--dotnet", "--project", "Suite", "--out",
                             self.path("starter.json")], cwd=os.path.join(FIX, "base"),
                            capture_output=True, text=True, timeout=60)
        self.assertEqual(cp.returncode, 0, cp.stderr)
        with open(self.path("starter.json")) as f:
            plan = json.load(f)
        for v in plan["variants"]:
            v["cwd"] = os.path.join(FIX, "base", "Suite")
        # Two rounds, what this test checks being the runs, not the gates,
        # which two could never decide (a plan asking that is refused).
        for key in ("until", "max_rounds"):
            del plan["schedule"][key]
        del plan["gates"]
        plan["schedule"].update({"warmups": 0, "runs": 2, "gap_seconds": 0})
        plan["load"] = LOAD_ASIDE
        cp, res = self.run_plan(plan, None, timeout=900)
        self.assertIn(cp.returncode, (0, 5, 6), cp.stderr)
        self.assertEqual(res["status"], "completed", res["notes"])
        counted = [i for i in res["invocations"] if i["status"] != "discarded"]
        self.assertEqual([i["tests"]["executed"] for i in counted], [6] * 4)
        md = self.load("ev", "metadata.json")
        # The test assembly alone, not the test framework's dlls beside it.
        names = [os.path.basename(f["path"]) for a in md["variants"][0]["assemblies"]
                 for f in a["files"]]
        self.assertEqual(names, ["Suite.dll"])
        self.assertIn("xunit 2.9.3",
                      md["variants"][0]["versions"]["packages"]["output"].splitlines())
        self.assertTrue(md["variants"][0]["versions"]["dotnet"]["output"].strip())

    def test_a_second_dotnet_test_beside_a_run_is_named_and_discarded(self):
        # Another team's dotnet test on the same machine, started while the plan
        # runs, again and again: load.exclusive's patterns see it (the muxer's
        # "dotnet test" and its test host) and every overlapped run is discarded;
        # abev's own dotnet test and test host never match.
        stop = threading.Event()
        started = threading.Event()
        procs = []

        def other():
            while not stop.is_set():
                # A session of its own: its test host is killed with it (killing
                # the muxer alone leaves the host running, orphaned).
                p = subprocess.Popen(["dotnet", "test", "--no-build", "-c", "Release"],
                                     cwd=os.path.join(FIX, "base", "Suite"),
                                     env={**os.environ, **QUIET}, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
                                     start_new_session=True)
                procs.append(p)
                started.set()
                p.wait()

        loop = threading.Thread(target=other)
        loop.start()

        def halt():
            stop.set()
            loop.join(timeout=0)
            while loop.is_alive() or session_left(procs):
                for sid in session_left(procs):
                    try:
                        os.killpg(sid, 9)
                    except OSError:
                        pass
                loop.join(timeout=0.1)
        self.addCleanup(halt)
        self.assertTrue(started.wait(60))
        plan = self.plan([self.variant("old", "base"), self.variant("new", "base")], runs=1,
                         load={"max_cpu_wait_pct": 100, "max_foreign_cpu": 64,
                               "max_repeats": 0, "exclusive": ["dotnet test*", "*testhost*"]})
        cp, res = self.run_plan(plan, None, timeout=900)
        halt()
        inv = res["invocations"][0]
        self.assertEqual(inv["status"], "discarded", inv.get("reason"))
        self.assertIn("load.exclusive", inv["reason"])
        hits = inv["overlaps"]["processes"]
        self.assertTrue(hits)
        for h in hits:
            self.assertEqual(h["kind"], "exclusive")
            self.assertIn(h["pattern"], ("dotnet test*", "*testhost*"))
        # Only the other dotnet test (its muxer, started here, or its test host,
        # "dotnet exec ... testhost.dll", whose record keeps only the command's first
        # OVERLAP_COMMAND_MAX bytes): abev's own run of it, its descendant, is no
        # overlap.
        others = {p.pid for p in procs}
        for h in hits:
            self.assertTrue(h["pid"] in others or
                            (h["pattern"] == "*testhost*" and "dotnet exec" in h["command"]), h)
        self.assertEqual(res["status"], "failed")
        self.assertIn("a process matching load.exclusive overlapped", cp.stdout)
