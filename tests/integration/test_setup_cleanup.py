"""A plan's setup and cleanup commands (hyperfine's --setup and --cleanup):
each variant's setup runs once before the first invocation, its cleanup
once after the last, neither measured; their output is kept in
runs/<variant>/setup.log and cleanup.log, result.json's "steps" records
them and the notes say how each ended. A setup that fails stops the plan
before any invocation (status failed, exit 1); a cleanup's failure is a
note."""
import json
import os
import shutil
import subprocess

import schemas
from common import ABEV, AbevTestCase


class SetupCleanup(AbevTestCase):
    def plan(self, setup, cleanup, **extra):
        p = {"schema": "abev.plan/1", "name": "steps",
             "variants": [{"name": "a", "command": ["sh", "-c", "cat built-{variant}"]},
                          {"name": "b", "command": ["sh", "-c", "cat built-{variant}"]}],
             "schedule": {"runs": 2, "setup": setup, "cleanup": cleanup}}
        p.update(extra)
        return self.write_plan(p)

    def run_steps(self, plan, check):
        cp = self.abev("run", plan, "--unsigned", "--out", self.path("ev"), "--max-cpu-wait-pct",
                       "100", timeout=120)
        self.assertEqual(cp.returncode, check, cp.stdout + cp.stderr)
        return cp, self.load("ev", "result.json")

    def test_setup_before_cleanup_after(self):
        # The runs read what setup made; cleanup removes it once the last run is over.
        # The setups differ ({variant}) in one cwd: each variant runs after its own.
        plan = self.plan(["sh", "-c", "echo made-{variant} > built-{variant}; echo set {variant}"],
                         ["sh", "-c", "rm built-{variant}; echo gone {variant}"])
        _, res = self.run_steps(plan, 0)
        self.assertEqual(res["status"], "completed")
        self.assertEqual(res["schedule"]["order"], "sequential")
        self.assertTrue(all(i["status"] == "ok" for i in res["invocations"]))
        self.assertFalse([f for f in os.listdir(self.tmp) if f.startswith("built-")])
        self.assertEqual([(s["variant"], s["step"], s["status"]) for s in res["steps"]],
                         [("a", "setup", "ok"), ("a", "cleanup", "ok"),
                          ("b", "setup", "ok"), ("b", "cleanup", "ok")])
        self.assertEqual(res["steps"][2]["argv"],
                         ["sh", "-c", "echo made-b > built-b; echo set b"])
        with open(self.path("ev", "runs", "b", "setup.log")) as f:
            self.assertEqual(f.read(), "set b\n")
        with open(self.path("ev", "runs", "a", "cleanup.log")) as f:
            self.assertEqual(f.read(), "gone a\n")
        with open(self.path("ev", "runs", "a", "run-2", "test.log")) as f:
            self.assertEqual(f.read(), "made-a\n")
        self.assertEqual(len([n for n in res["notes"] if "ended ok" in n]), 4)
        if schemas.AVAILABLE:
            self.assertEqual(schemas.errors("run", res), [])
        # Sealed with the rest: verify checks the logs, report renders the same page.
        # 7: the files match their manifest, which nobody signed (--unsigned).
        self.abev("verify", self.path("ev"), check=7)
        cp = self.abev("report", self.path("ev"), check=0)
        with open(self.path("ev", "report.md"), encoding="utf-8") as f:
            self.assertEqual(cp.stdout, f.read())

    def test_a_step_keeps_what_limits_max_step_log_bytes_allows(self):
        # 3000 bytes of setup output, 1000 kept: the rest is read (the step
        # ends ok, it never blocks) and counted, not written.
        plan = self.plan(["sh", "-c", "head -c 3000 /dev/zero | tr '\\0' x; echo made > built-{variant}"],
                         None, limits={"max_step_log_bytes": 1000})
        with open(plan) as f:
            p = json.load(f)
        del p["schedule"]["cleanup"]
        with open(plan, "w") as f:
            json.dump(p, f)
        _, res = self.run_steps(plan, 0)
        setup = [s for s in res["steps"] if s["variant"] == "a"][0]
        self.assertEqual(setup["status"], "ok")
        self.assertEqual((setup["log"]["bytes_written"], setup["log"]["bytes_dropped"],
                          setup["log"]["truncated"]), (1000, 2000, True))
        with open(self.path("ev", "runs", "a", "setup.log")) as f:
            self.assertEqual(f.read(), "x" * 1000)
        # Out of its bounds, the key is refused with its path and nothing runs.
        bad = self.plan(["true"], ["true"], limits={"max_step_log_bytes": 2 ** 28 + 1})
        cp = self.abev("run", bad, "--unsigned", "--out", self.path("ev2"), check=2)
        self.assertIn("limits.max_step_log_bytes", cp.stderr)
        self.assertFalse(os.path.exists(self.path("ev2")))

    def test_a_failed_setup_runs_nothing(self):
        # One setup for both (no {variant}): both run before the first invocation.
        plan = self.plan(["sh", "-c", "echo no; exit 4"], ["sh", "-c", "echo cleaned"])
        cp, res = self.run_steps(plan, 1)
        self.assertEqual(res["status"], "failed")
        self.assertEqual(res["invocations"], [])
        self.assertIn("abev stopped the plan before its first invocation: the setup command "
                      "of 'a' exited with code 4 (runs/a/setup.log)", cp.stdout)
        self.assertEqual([(s["variant"], s["step"], s["status"]) for s in res["steps"]],
                         [("a", "setup", "failed")])
        if schemas.AVAILABLE:
            self.assertEqual(schemas.errors("run", res), [])

    def test_a_gated_plan_stopped_after_setup_has_no_decision(self):
        # Issue 39 §3: nothing could be compared, which is no decision, not an
        # "inconclusive" that would read as an undecided effect; the exit code is
        # the failed setup's.
        setup, cleanup = ["sh", "-c", "exit 4"], ["sh", "-c", "true"]
        plan = self.plan(setup, cleanup, gates={"wall": {"max_regression_pct": 10}},
                         schedule={"runs": 6, "setup": setup, "cleanup": cleanup})
        cp, res = self.run_steps(plan, 1)
        self.assertEqual(res["invocations"], [])
        cmp = res["comparison"]
        self.assertEqual(cmp["decision"], "no decision")
        self.assertEqual(cmp["no_decision"], {"reason": "nothing_compared", "rounds_done": 0,
                                              "rounds_planned": 6, "shown": None})
        self.assertIn("decision: no decision: nothing could be compared", cp.stdout)

    def test_a_failed_setup_stops_the_variants_after_it(self):
        # Setups that differ in one cwd: a's setup, runs and cleanup, then b's setup fails.
        plan = self.plan(["sh", "-c", "if test {variant} != a; then echo no; exit 4; fi; "
                                      "echo made > built-{variant}"],
                         ["sh", "-c", "echo cleaned {variant}"])
        cp, res = self.run_steps(plan, 1)
        self.assertEqual(res["status"], "failed")
        self.assertEqual([(i["variant"], i["status"]) for i in res["invocations"]],
                         [("a", "ok"), ("a", "ok")])
        self.assertIn("abev stopped the plan before the runs of 'b': the setup command of 'b' "
                      "exited with code 4 (runs/b/setup.log)", cp.stdout)
        # a was set up, so it is cleaned up; b's setup failed, so it is not.
        self.assertEqual([(s["variant"], s["step"], s["status"]) for s in res["steps"]],
                         [("a", "setup", "ok"), ("a", "cleanup", "ok"),
                          ("b", "setup", "failed")])
        self.assertFalse(os.path.exists(self.path("ev", "runs", "b", "cleanup.log")))
        if schemas.AVAILABLE:
            self.assertEqual(schemas.errors("run", res), [])

    def test_assemblies_a_setup_builds_are_hashed_after_it(self):
        # The setup builds what is hashed: matched before setup, the plan was
        # refused (exit 2). Now each variant's assemblies are matched and
        # hashed once its setup ended ok, and metadata.json says so.
        import hashlib
        plan = self.plan(["sh", "-c", "mkdir -p out-{variant} && echo lib-{variant} > "
                          "out-{variant}/lib.dll && echo x > built-{variant}"],
                         ["sh", "-c", "rm -r out-{variant} built-{variant}"])
        with open(plan) as f:
            doc = json.load(f)
        for v in doc["variants"]:
            v["assemblies"] = ["out-{variant}/*.dll"]
        os.remove(plan)
        plan = self.write_plan(doc)
        _, res = self.run_steps(plan, 0)
        self.assertEqual(res["status"], "completed")
        md = self.load("ev", "metadata.json")
        for v in md["variants"]:
            asm = v["assemblies"][0]
            self.assertEqual(asm["matched"], "after_setup")
            want = hashlib.sha256(f"lib-{v['name']}\n".encode()).hexdigest()
            self.assertEqual([(f["path"], f["sha256"]) for f in asm["files"]],
                             [(f"out-{v['name']}/lib.dll", want)])
        if schemas.AVAILABLE:
            self.assertEqual(schemas.errors("metadata", md), [])
        # Sealed after the rewrite: the ledger knows metadata.json's new bytes.
        self.abev("verify", self.path("ev"), check=7)
        # The run's report shows the files matched after setup, and is what
        # abev report renders from the evidence again, byte for byte.
        with open(self.path("ev", "report.md"), encoding="utf-8") as f:
            report = f.read()
        self.assertIn("- `out-a/lib.dll`: ", report)
        self.assertIn("- `out-b/lib.dll`: ", report)
        self.assertEqual(self.abev("report", self.path("ev"), check=0).stdout, report)

        # A setup that builds nothing: stopped before the first invocation, said why.
        shutil.rmtree(self.path("ev"))
        for v in doc["variants"]:
            v["setup"] = ["true"]
        os.remove(plan)
        plan = self.write_plan(doc)
        cp, res = self.run_steps(plan, 1)
        self.assertEqual(res["invocations"], [])
        self.assertIn("abev stopped the plan before its first invocation: "
                      "variants[0].assemblies[0] 'out-{variant}/*.dll' matches no file in",
                      cp.stdout)
        md = self.load("ev", "metadata.json")
        self.assertEqual([v["assemblies"][0]["matched"] for v in md["variants"]],
                         ["not_matched"] * 2)
        self.assertEqual([v["assemblies"][0]["files"] for v in md["variants"]], [[], []])
        if schemas.AVAILABLE:
            self.assertEqual(schemas.errors("metadata", md), [])

    def test_a_failed_cleanup_is_a_note(self):
        plan = self.plan(["sh", "-c", "echo x > built-{variant}"], ["sh", "-c", "exit 3"])
        _, res = self.run_steps(plan, 0)
        self.assertEqual(res["status"], "completed")
        self.assertIn("the cleanup command of 'a' (sh -c 'exit 3') exited with code 3 "
                      "(runs/a/cleanup.log); the runs still count", res["notes"])
        for v in ("a", "b"):
            os.unlink(self.path(f"built-{v}"))

    def test_a_stopped_step_or_command_without_a_timeout_is_ended(self):
        # Issue 40 §6: with no timeout, a setup or a command that stopped itself
        # kept abev waiting for ever. It is ended once it stayed stopped 10 s.
        stop = ["sh", "-c", "kill -STOP $$; echo resumed"]
        plan = self.plan(stop, None, schedule={"runs": 1, "setup": stop,
                                               "kill_grace_seconds": 1})
        _, res = self.run_steps(plan, 1)
        self.assertEqual([(s["step"], s["status"]) for s in res["steps"]],
                         [("setup", "timed_out")])
        self.assertEqual(res["invocations"], [])
        self.assertTrue(any("stayed stopped (SIGSTOP or SIGTSTP) for 10 s" in n
                            for n in res["notes"]), res["notes"])
        os.remove(self.path("plan.json"))
        shutil.rmtree(self.path("ev"))
        p = {"schema": "abev.plan/1", "name": "stops",
             "variants": [{"name": "a", "command": stop}],
             "schedule": {"runs": 1, "kill_grace_seconds": 1}}
        _, res = self.run_steps(self.write_plan(p), 1)
        inv = res["invocations"][0]
        self.assertEqual(inv["status"], "timed_out")
        self.assertTrue(inv["reason"].startswith("stayed stopped (SIGSTOP or SIGTSTP) for 10 s, "
                                                 "which a process does not leave by itself; "
                                                 "stopped with SIGTERM"), inv["reason"])

    def test_a_step_that_stops_itself_times_out(self):
        # A stopped process never exits by itself: the schedule's timeout still
        # ends it (SIGTERM, SIGCONT so that the stop does not hold the SIGTERM,
        # SIGKILL after the grace period), as it ends a hung one.
        stop = ["sh", "-c", "kill -STOP $$; echo resumed"]
        sched = {"runs": 1, "timeout_seconds": 1, "kill_grace_seconds": 1}
        plan = self.plan(stop, None, schedule={**sched, "setup": stop})
        _, res = self.run_steps(plan, 1)
        self.assertEqual(res["status"], "failed")
        self.assertEqual(res["invocations"], [])
        self.assertEqual([(s["step"], s["status"]) for s in res["steps"]],
                         [("setup", "timed_out")])
        self.assertEqual(res["steps"][0]["signal"], 15)
        for step, want_runs in (("cleanup", "ok"), ("prepare", "failed")):
            with self.subTest(step=step):
                os.remove(self.path("plan.json"))
                shutil.rmtree(self.path("ev"))
                with open(self.path("built-a"), "w") as f, open(self.path("built-b"), "w") as g:
                    f.write("a\n")
                    g.write("b\n")
                plan = self.plan(None, None, schedule={**sched, step: stop})
                _, res = self.run_steps(plan, 0 if step == "cleanup" else 1)
                self.assertEqual({i["status"] for i in res["invocations"]}, {want_runs})
                if step == "cleanup":
                    self.assertEqual([(s["step"], s["status"]) for s in res["steps"]],
                                     [("cleanup", "timed_out")] * 2)
                else:
                    for inv in res["invocations"]:
                        self.assertIn("the prepare command timed out after 1 s", inv["reason"])

    def test_a_hung_setup_is_ended_at_the_step_limit(self):
        # Without schedule.timeout_seconds a setup that hangs (a build waiting
        # on a lock) kept abev waiting for ever. Every step has a limit now:
        # here the plan's own, one second; the watchdog is the test's timeout.
        hang = ["sh", "-c", "sleep 1000"]
        plan = self.plan(hang, ["true"], schedule={"runs": 1, "setup": hang, "cleanup": ["true"],
                                                   "step_timeout_seconds": 1,
                                                   "kill_grace_seconds": 0})
        cp, res = self.run_steps(plan, 1)
        self.assertEqual(res["status"], "failed")
        self.assertEqual(res["invocations"], [])
        self.assertEqual([(s["variant"], s["step"], s["status"], s["signal"])
                          for s in res["steps"]], [("a", "setup", "timed_out", 15)])
        self.assertTrue(res["steps"][0]["reason"].startswith(
            "timed out after 1 s (schedule.step_timeout_seconds); stopped with SIGTERM"),
            res["steps"][0]["reason"])
        self.assertIn("abev stopped the plan before its first invocation: the setup command "
                      "of 'a' timed out after 1 s (schedule.step_timeout_seconds)", cp.stdout)
        # The measured command keeps its own limit: none.
        sched = res["schedule"]
        self.assertEqual((sched["timeout_seconds"], sched["step_timeout_seconds"],
                          sched["step_timeout_seconds_from"]), (None, 1, "plan"))
        if schemas.AVAILABLE:
            self.assertEqual(schemas.errors("run", res), [])

    def test_a_hung_prepare_fails_its_invocation(self):
        hang = ["sh", "-c", "sleep 1000"]
        p = {"schema": "abev.plan/1", "name": "prep",
             "variants": [{"name": "a", "command": ["true"]},
                          {"name": "b", "command": ["true"], "prepare": ["true"]}],
             "schedule": {"runs": 1, "prepare": hang, "step_timeout_seconds": 1,
                          "kill_grace_seconds": 0}}
        _, res = self.run_steps(self.write_plan(p), 1)
        inv = {i["variant"]: i for i in res["invocations"]}
        self.assertEqual((inv["a"]["status"], inv["a"]["prepare"]["status"]),
                         ("failed", "timed_out"))
        self.assertIn("the prepare command timed out after 1 s "
                      "(schedule.step_timeout_seconds)", inv["a"]["reason"])
        # b's own prepare step ends at once: its run counts.
        self.assertEqual((inv["b"]["status"], inv["b"]["prepare"]["status"]), ("ok", "ok"))
        if schemas.AVAILABLE:
            self.assertEqual(schemas.errors("run", res), [])

    def test_the_step_limit_is_recorded_with_who_chose_it(self):
        # No timeout in the plan: the steps get an hour, the measured command none.
        made, gone = ["sh", "-c", "echo x > built-{variant}"], ["sh", "-c", "rm built-{variant}"]
        plan = self.plan(made, gone)
        _, res = self.run_steps(plan, 0)
        sched = res["schedule"]
        self.assertEqual((sched["timeout_seconds"], sched["step_timeout_seconds"],
                          sched["step_timeout_seconds_from"]), (None, 3600, "default"))
        if schemas.AVAILABLE:
            self.assertEqual(schemas.errors("run", res), [])
        # The schedule's timeout: the steps take it, and a step that meets it says so.
        os.remove(self.path("plan.json"))
        shutil.rmtree(self.path("ev"))
        hang = ["sh", "-c", "sleep 1000"]
        plan = self.plan(hang, ["true"], schedule={"runs": 1, "setup": hang, "timeout_seconds": 1,
                                                   "kill_grace_seconds": 0})
        _, res = self.run_steps(plan, 1)
        sched = res["schedule"]
        self.assertEqual((sched["timeout_seconds"], sched["step_timeout_seconds"],
                          sched["step_timeout_seconds_from"]), (1, 1, "timeout_seconds"))
        self.assertEqual([(s["step"], s["status"]) for s in res["steps"]],
                         [("setup", "timed_out")])
        self.assertTrue(res["steps"][0]["reason"].startswith(
            "timed out after 1 s (schedule.timeout_seconds, which steps take without "
            "schedule.step_timeout_seconds); stopped with SIGTERM"), res["steps"][0]["reason"])
        # --dry-run --json writes the limit out, so that the document runs the same.
        cp = self.abev("run", plan, "--dry-run", "--json", check=0)
        self.assertEqual(json.loads(cp.stdout)["schedule"]["step_timeout_seconds"], 1)

    def test_plan_rules(self):
        for doc, words in (
                ({"schedule": {"setup": ["make", "{run_dir}"]}},
                 "schedule.setup[1]: placeholder '{run_dir}' cannot be used here"),
                ({"variants": [{"name": "a", "command": ["true"], "cleanup": []}]},
                 "variants[0].cleanup: expected a non-empty array of strings"),
                ({"base": {"command": ["true"], "setup": ["true"]}, "variants_file": "v.txt"},
                 "base.setup: not allowed in base: schedule.setup is for every variant")):
            with open(self.path("v.txt"), "w") as f:
                f.write("x||\n")
            p = {"schema": "abev.plan/1", "name": "r",
                 "variants": [{"name": "z", "command": ["true"]}]}
            p.update(doc)
            cp = self.abev("run", self.write_plan(p), "--dry-run")
            self.assertEqual(cp.returncode, 2, cp.stderr)
            self.assertIn(words, cp.stderr)
        # --dry-run --json keeps them, each variant with its own or the schedule's.
        p = {"schema": "abev.plan/1", "name": "j",
             "variants": [{"name": "a", "command": ["true"], "setup": ["true", "{variant}"]},
                          {"name": "b", "command": ["true"]}],
             "schedule": {"setup": ["sync"], "cleanup": ["true"]}}
        cp = self.abev("run", self.write_plan(p), "--dry-run", "--json", check=0)
        doc = json.loads(cp.stdout)
        self.assertEqual([(v["setup"], v["cleanup"]) for v in doc["variants"]],
                         [(["true", "{variant}"], ["true"]), (["sync"], ["true"])])

    def test_bench_setup_and_cleanup_with_a_scan(self):
        # As in hyperfine, {VAR} is replaced in --setup and --cleanup.
        cp = subprocess.run([ABEV, "bench", "-L", "v", "1,2", "--setup", "echo {v} > built-{v}",
                             "--cleanup", "rm built-{v}", "cat built-{v}", "-r", "1",
                             "--max-cpu-wait-pct", "100", "--unsigned", "--out", "ev"],
                            cwd=self.tmp, capture_output=True, text=True, timeout=120,
                            stdin=subprocess.DEVNULL)
        self.assertEqual(cp.returncode, 0, cp.stdout + cp.stderr)
        plan = self.load("ev", "plan.json")
        self.assertEqual([(v["setup"][2], v["cleanup"][2]) for v in plan["variants"]],
                         [("echo 1 > built-1", "rm built-1"), ("echo 2 > built-2", "rm built-2")])
        with open(self.path("ev", "runs", "cat-built-2", "run-1", "test.log")) as f:
            self.assertEqual(f.read(), "2\n")
        self.assertFalse(os.path.exists(self.path("built-1")))
        self.assertIn("evidence:", cp.stdout)


class SetupsThatCollide(AbevTestCase):
    """Issue 33: scanned setups that write the same path. Every setup ran
    before the first round, so every variant's runs saw the last one's
    product. Setups that differ in one cwd now run each variant after its
    own setup (order sequential, as hyperfine runs); identical setups keep
    the alternation; an order that alternates them is refused."""

    SCAN = ("-L", "v", "1,2", "-s", "sh -c 'echo built-{v} > product'", "cat product",
            "-r", "2", "-w", "1")

    def bench(self, *args, check):
        cp = subprocess.run([ABEV, "bench", *args, "--max-cpu-wait-pct", "100", "--unsigned",
                             "--out", "ev"], cwd=self.tmp, capture_output=True, text=True,
                            timeout=120, stdin=subprocess.DEVNULL)
        self.assertEqual(cp.returncode, check, cp.stdout + cp.stderr)
        return cp

    def logs(self, variant):
        runs = sorted(d for d in os.listdir(self.path("ev", "runs", variant))
                      if d.startswith(("run-", "warmup-")))
        out = []
        for d in runs:
            with open(self.path("ev", "runs", variant, d, "test.log")) as f:
                out.append(f.read())
        return out

    def test_each_variant_runs_on_its_own_setup(self):
        cp = self.bench(*self.SCAN, check=0)
        res = self.load("ev", "result.json")
        self.assertEqual(res["schedule"]["order"], "sequential")
        self.assertEqual(res["schedule"]["order_from"], "setups")
        # Warmup and runs of each variant see its own build: built-1 for v=1, built-2 for v=2.
        self.assertEqual(self.logs("cat-product-v-1"), ["built-1\n"] * 3)
        self.assertEqual(self.logs("cat-product-v-2"), ["built-2\n"] * 3)
        # Each variant's setup, its warmup and runs, then the next variant's: hyperfine's order.
        self.assertEqual([(i["variant"][-1], i["phase"], i["round"]) for i in res["invocations"]],
                         [("1", "warmup", 1), ("1", "run", 1), ("1", "run", 2),
                          ("2", "warmup", 1), ("2", "run", 1), ("2", "run", 2)])
        setups = [s for s in res["steps"] if s["step"] == "setup"]
        self.assertEqual([s["variant"] for s in setups], ["cat-product-v-1", "cat-product-v-2"])
        # Paired as ever: round r of one variant with round r of the other.
        sample = [s for m in res["comparison"]["metrics"] if m["name"] == "wall"
                  for s in m["variants"] if s["variant"] == "cat-product-v-2"][0]
        self.assertEqual(sample["paired"]["pairs"], 2)
        # The order and its reason, on the terminal and in the report.
        self.assertRegex(cp.stdout, r"(?m)^order: +sequential: the variants' setups differ "
                                    r"and share a working directory")
        self.assertIn("more exposed to drift", cp.stdout)
        with open(self.path("ev", "report.md"), encoding="utf-8") as f:
            self.assertRegex(f.read(), r"(?m)^Order: sequential — the variants' setups differ")
        if schemas.AVAILABLE:
            self.assertEqual(schemas.errors("run", res), [])
        cp = self.abev("report", self.path("ev"), check=0)
        with open(self.path("ev", "report.md"), encoding="utf-8") as f:
            self.assertEqual(cp.stdout, f.read())

    def test_identical_setups_keep_alternating(self):
        cp = self.bench("-L", "v", "1,2", "-s", "sh -c 'echo built > product'",
                        "cat product; echo {v}", "-r", "2", check=0)
        res = self.load("ev", "result.json")
        self.assertEqual((res["schedule"]["order"], res["schedule"]["order_from"]),
                         ("balanced", "default"))
        a, b = res["variants"]
        self.assertEqual([i["variant"] for i in res["invocations"]], [a, b, b, a])
        self.assertNotIn("order:", cp.stdout)

    def test_an_alternating_order_is_refused(self):
        for order in ("alternate", "balanced"):
            cp = self.bench(*self.SCAN, "--order", order, check=2)
            self.assertIn(f'order "{order}" would run every variant on the products of the '
                          "last setup: the setups of 'cat-product-v-1' and 'cat-product-v-2' "
                          f"differ and both run in '{os.path.realpath(self.tmp)}'", cp.stderr)
            self.assertIn("distinct cwds", cp.stderr)
            self.assertFalse(os.path.exists(self.path("ev")))
            self.assertFalse(os.path.exists(self.path("product")))

    def test_a_plan_may_ask_for_sequential(self):
        p = {"schema": "abev.plan/1", "name": "seq",
             "variants": [{"name": "a", "command": ["true"]}, {"name": "b", "command": ["true"]}],
             "schedule": {"runs": 2, "order": "sequential"}}
        cp = self.abev("run", self.write_plan(p), "--unsigned", "--out", self.path("ev"),
                       "--max-cpu-wait-pct", "100", timeout=120)
        self.assertEqual(cp.returncode, 0, cp.stdout + cp.stderr)
        res = self.load("ev", "result.json")
        self.assertEqual((res["schedule"]["order"], res["schedule"]["order_from"]),
                         ("sequential", "plan"))
        self.assertEqual([i["variant"] for i in res["invocations"]], ["a", "a", "b", "b"])
        self.assertRegex(cp.stdout, r"(?m)^order: +sequential: as the plan asks")

    def test_init_from_bench_leaves_the_order_to_the_rule(self):
        # A starter names its order, but not with setups that may collide: it would be refused.
        # A starter has a gate: 4 rounds, the fewest that can decide it (2 are refused).
        scan = self.SCAN[:-4] + ("-r", "4", "-w", "1")
        self.abev("init", "--from-bench", *scan, "--out", self.path("plan.json"), check=0)
        self.assertNotIn("order", self.load("plan.json")["schedule"])
        cp = self.abev("run", self.path("plan.json"), "--dry-run", check=0)
        self.assertIn("order sequential", cp.stdout)
