"""evidence-schema/: the schemas are valid JSON Schema (draft 2020-12), the
bundled demo plan matches plan.schema.json, documents that break the spec
are refused, validate_evidence() catches a bad evidence directory, and the
evidence the real abev writes matches."""
import copy
import glob
import json
import os
import shutil
import unittest

import common
import schemas
from common import AbevTestCase

SRC = schemas._src
DEMO_PLAN = os.path.join(SRC, "examples", "demo", "plan.json")
UTC = "2026-11-10T16:54:37.980941+00:00"

INVOCATION = {
    "seq": 1, "variant": "baseline", "phase": "run", "round": 1, "attempt": 1,
    "status": "ok", "reason": None, "dir": "runs/baseline/run-1",
    "argv": ["/bin/true"], "cwd": "/tmp", "start_utc": UTC, "end_utc": UTC,
    "wall_ns": 1000, "exit_code": 0, "signal": None, "core_dumped": False,
    "timed_out": False, "exec_error": None, "user_ns": 10, "sys_ns": 20, "cpu_ns": 30,
    "max_rss_bytes": 4096, "minflt": 1, "majflt": 0, "nvcsw": 2, "nivcsw": 3,
    "load_before": {"1m": 0.5, "5m": 0.25, "15m": 0.1, "runnable": 1, "total": 300},
    "load_after": None, "foreign_cpu": 0.01, "foreign_cpu_resolution": 0.02,
    "max_foreign_cpu": 0.5, "cpu_wait_ns": 10, "cpu_wait_pct": 1.0,
    "cpu_wait_source": "schedstat", "cpu_wait_note": None, "tree_wait_ns": 10,
    "tree_active_ns": 900, "cgroup_cpu_wait_ns": 8, "max_cpu_wait_pct": 10,
    "system_cpu_wait_ns": 20, "run_cpus": 2, "foreign_busy_ns": 1000,
    "foreign_busy_fine_ns": 990, "foreign_busy_fine_source": "cpuacct",
    "foreign_wait_ns": 10, "foreign_wait_pct": 0.001, "foreign_wait_basis": "one_thread",
    "cpus": None,
    "load_wait_ns": 0, "loaded": False,
    "processes": {"source": "taskstats", "note": "taskstats exit records", "omitted": 0,
                  "list": [{"comm": "dotnet", "cmdline": "dotnet exec testhost.dll", "pid": 90,
                            "ppid": 89, "peak_rss_bytes": 101711872, "cpu_ns": 2000000,
                            "wait_ns": None, "source": "taskstats"}]},
    "leftovers_killed": 0, "paused": None,
    "overlaps": {"processes": [{"kind": "exclusive", "pid": 812, "command": "dotnet test x.dll",
                                "pattern": "dotnet test*", "evidence": None}], "unnamed": 0},
    "output": "pipe",
    "logs": {"stdout": {"bytes_written": 0, "bytes_dropped": 0, "truncated": False,
                        "bytes_left_out": 0, "bytes_total": 3,
                        "sha256": "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
             "stderr": {"bytes_written": 0, "bytes_dropped": 0, "truncated": False,
                        "bytes_left_out": 0, "bytes_total": None, "sha256": None}},
    "cgroup": {"memory_peak_bytes": None, "cpu_usage_ns": 30},
    "cgroup_note": "memory.peak is not available", "results_files": None,
    "tests": None, "results": [], "failed_tests": [], "failed_tests_omitted": 0, "test_failures": [],
    "test_times": [["Suite.A", 12.5]], "test_times_omitted": 0,
    "metrics": {}, "guards": [
        {"guard": "exit_code", "verdict": "pass", "reason": "exited with code 0 (allowed: 0)"}],
}

RUN = {
    "schema": "abev.run/1", "abev_version": "0.1.0",
    "plan": {"name": "t", "description": None, "file": "plan.json", "source": "plan.json"},
    "status": "completed", "interrupt": None, "started_utc": UTC, "ended_utc": UTC,
    "schedule": {"order": "alternate", "order_from": "plan", "seed": 1, "warmups": 0, "runs": 1,
                 "runs_from": "plan",
                 "gap_seconds": 0, "timeout_seconds": None, "step_timeout_seconds": 3600,
                 "step_timeout_seconds_from": "default", "max_foreign_cpu": 0.5,
                 "max_cpu_wait_pct": 10, "max_cpu_wait_pct_from": "default", "cpus": None,
                 "max_repeats": 2, "max_wait_seconds": 60, "max_wait_seconds_from": "default", "exclusive": ["dotnet test*"]},
    "peers": {"lock_dir": "/run/lock/abev", "wait": False, "waited_seconds": None},
    "run_as": None,
    "variants": ["baseline"], "planned": 1, "executed": 1, "abev_max_rss_bytes": 1 << 20,
    "notes": [], "tampered": [], "unsealed": [],
    "report": {"reproduce": "abev run plan.json --out NEW_DIR --unsigned", "cwd": "/w",
               "plan_sha256": "0" * 64, "evidence_dir": "ev", "signed": False, "pubkey": None,
               "key_source": None, "template": None},
    "comparison": None,
    "invocations": [INVOCATION],
}


METADATA = {
    "schema": "abev.metadata/1", "abev_version": "0.1.0",
    "host": {"label": "h", "hostname": "h", "os_release": None, "kernel": "6.1.0",
             "kernel_version": "#1", "arch": "x86_64", "cpu_model": None, "logical_cpus": 2,
             "physical_cores": None, "online_cpus": "0-1", "governor": None, "boost": None,
             "memory_bytes": 1073741824, "cgroup_version": "2", "clock_resolution_ns": 1},
    "variants": [{"name": "baseline", "cwd": "/w", "env": {"SDK": "2.0"}, "git": None,
                  "versions": {}, "assemblies": []}],
}


def invocation_doc():
    return {"schema": "abev.invocation/1", **copy.deepcopy(INVOCATION)}


def demo_plan():
    with open(DEMO_PLAN, encoding="utf-8") as f:
        return json.load(f)


@unittest.skipUnless(schemas.AVAILABLE, schemas.WHY_UNAVAILABLE)
class SchemaTest(AbevTestCase):

    def assertValid(self, kind, doc):
        self.assertEqual(schemas.errors(kind, doc), [], f"{kind} document should be valid")

    def assertInvalid(self, kind, doc, what):
        self.assertNotEqual(schemas.errors(kind, doc), [], f"{kind}: {what} should be refused")

    def test_schemas_are_valid_json_schema(self):
        for kind in schemas.KINDS:
            with self.subTest(kind=kind):
                s = schemas.schema(kind)
                self.assertEqual(s["$schema"], "https://json-schema.org/draft/2020-12/schema")
                schemas.Draft202012Validator.check_schema(s)

    def test_reason_codes_are_the_binarys(self):
        # The codes run.schema.json allows in each field are those of abev's one
        # table (record/reason.c), as `abev help reasons --markdown` lists them.
        out = self.abev("help", "reasons", "--markdown", check=0).stdout
        rows = [l.split("|")[1:3] for l in out.splitlines() if l.startswith("| `")]
        table = {}
        for code, field in rows:
            table.setdefault(field.strip(" `"), set()).add(code.strip(" `"))
        s = schemas.schema("run")
        cmp = s["$defs"]["comparison"]["properties"]
        enum = lambda o: {c for c in o["enum"] if c is not None}
        self.assertEqual(table.pop("gates[].reason"), enum(s["$defs"]["gate_reason"]))
        self.assertEqual(table.pop("gate_interval.note, gates[].note"),
                         enum(s["$defs"]["interval_reason"]))
        for key in ("warnings", "blocking", "missing"):
            item = cmp[key]["items"]["anyOf"][0]
            self.assertEqual(table.pop(f"{key}[].code"), enum(item["properties"]["code"]), key)
        none = cmp["no_decision"]["anyOf"][1]["properties"]["reason"]
        self.assertEqual(table.pop("no_decision.reason"), enum(none))
        self.assertEqual(table, {})

    def test_demo_plan_is_valid(self):
        self.assertValid("plan", demo_plan())

    def test_plan_refusals(self):
        def variant(p):
            return p["variants"][0]
        cases = [
            ("an unknown top-level key", lambda p: p.update(extra=1)),
            ("an unknown key in a variant", lambda p: variant(p).update(shell="sh")),
            ("an unknown key in schedule", lambda p: p["schedule"].update(repeat=2)),
            ("an unknown key in load", lambda p: p["load"].update(max_load=1)),
            ("a missing name", lambda p: p.pop("name")),
            ("a missing schema", lambda p: p.pop("schema")),
            ("another schema version", lambda p: p.update(schema="abev.plan/2")),
            ("an empty name", lambda p: p.update(name="")),
            ("a variant without command", lambda p: variant(p).pop("command")),
            ("an empty command", lambda p: variant(p).update(command=[])),
            ("a non-string env value", lambda p: variant(p)["env"].update(N=1)),
            ("a variant name starting with '.'", lambda p: variant(p).update(name=".x")),
            ("a variant name with '/'", lambda p: variant(p).update(name="a/b")),
            ("a variant name of 65 characters", lambda p: variant(p).update(name="v" * 65)),
            ("an unknown order", lambda p: p["schedule"].update(order="random")),
            ("runs 0", lambda p: p["schedule"].update(runs=0)),
            ("fractional runs", lambda p: p["schedule"].update(runs=1.5)),
            ("negative warmups", lambda p: p["schedule"].update(warmups=-1)),
            ("timeout 0", lambda p: p["schedule"].update(timeout_seconds=0)),
            ("step timeout 0", lambda p: p["schedule"].update(step_timeout_seconds=0)),
            ("a step timeout over 7 days",
             lambda p: p["schedule"].update(step_timeout_seconds=604801)),
            ("a negative gap", lambda p: p["schedule"].update(gap_seconds=-1)),
            ("negative max_foreign_cpu", lambda p: p["load"].update(max_foreign_cpu=-0.1)),
            ("max_cpu_wait_pct over 100", lambda p: p["load"].update(max_cpu_wait_pct=101)),
            ("an unfinished cpus range", lambda p: variant(p).update(cpus="1-")),
            ("a numeric cpus", lambda p: p["schedule"].update(cpus=1)),
            ("negative min_executed", lambda p: p["results"].update(min_executed=-1)),
            ("no variants at all", lambda p: p.update(variants=[])),
            ("a variants_file without base", lambda p: p.update(variants_file="v.txt")),
        ]
        for what, change in cases:
            with self.subTest(what=what):
                p = demo_plan()
                change(p)
                self.assertInvalid("plan", p, what)

    def test_plan_variants_file_with_base(self):
        p = {"schema": "abev.plan/1", "name": "f", "variants_file": "v.txt",
             "base": {"command": ["./bench"], "env": {"A": "1"}}}
        self.assertValid("plan", p)
        p["base"]["name"] = "x"
        self.assertInvalid("plan", p, "a name in base")

    def test_invocation(self):
        self.assertValid("invocation", invocation_doc())
        cases = [
            ("an unknown status", lambda d: d.update(status="passed")),
            ("an unknown phase", lambda d: d.update(phase="warm")),
            ("a missing required key", lambda d: d.pop("cpu_ns")),
            ("a missing schema", lambda d: d.pop("schema")),
            ("an unknown key", lambda d: d.update(note="x")),
            ("seq 0", lambda d: d.update(seq=0)),
            ("negative wall_ns", lambda d: d.update(wall_ns=-1)),
            ("a string exit code", lambda d: d.update(exit_code="0")),
            ("a load sample without total", lambda d: d["load_before"].pop("total")),
            ("an unknown cgroup key", lambda d: d["cgroup"].update(io=1)),
            ("an absolute dir", lambda d: d.update(dir="/tmp/runs/baseline/run-1")),
            ("a time without zone", lambda d: d.update(start_utc="2026-11-10T16:54:37")),
            ("a log digest not hex", lambda d: d["logs"]["stdout"].update(sha256="ABC")),
            ("an empty output", lambda d: d.update(output="")),
        ]
        for what, change in cases:
            with self.subTest(what=what):
                d = invocation_doc()
                change(d)
                self.assertInvalid("invocation", d, what)

    def test_run(self):
        self.assertValid("run", RUN)
        running = copy.deepcopy(RUN)
        running.update(status="running", ended_utc=None, invocations=[], executed=0)
        self.assertValid("run", running)
        cases = [
            ("an unknown status", lambda r: r.update(status="done")),
            ("an unknown interrupt", lambda r: r.update(interrupt="SIGKILL")),
            ("a missing required key", lambda r: r.pop("notes")),
            ("an unknown key", lambda r: r.update(host="x")),
            ("another plan file name", lambda r: r["plan"].update(file="p.json")),
            ("an invocation with a schema key",
             lambda r: r["invocations"][0].update(schema="abev.invocation/1")),
            ("an invocation with an unknown status",
             lambda r: r["invocations"][0].update(status="skipped")),
            ("an invocation without variant", lambda r: r["invocations"][0].pop("variant")),
            ("an unknown order", lambda r: r["schedule"].update(order="random")),
            ("no step timeout", lambda r: r["schedule"].pop("step_timeout_seconds")),
            ("a step timeout of none", lambda r: r["schedule"].update(step_timeout_seconds=None)),
            ("an unknown step timeout source",
             lambda r: r["schedule"].update(step_timeout_seconds_from="--timeout")),
            ("an unknown key source", lambda r: r["report"].update(key_source="argv")),
            ("a key source on unsigned evidence",
             lambda r: r["report"].update(key_source="option")),
            ("signed evidence without a key source",
             lambda r: r["report"].update(signed=True, pubkey="k.pub")),
            ("no key source", lambda r: r["report"].pop("key_source")),
        ]
        signed = copy.deepcopy(RUN)
        signed["report"].update(signed=True, pubkey="k.pub", key_source="environment")
        self.assertValid("run", signed)
        for what, change in cases:
            with self.subTest(what=what):
                r = copy.deepcopy(RUN)
                change(r)
                self.assertInvalid("run", r, what)

    def write_evidence(self, root):
        os.makedirs(os.path.join(root, "runs", "baseline", "run-1"))
        shutil.copyfile(DEMO_PLAN, os.path.join(root, "plan.json"))
        with open(os.path.join(root, "metadata.json"), "w", encoding="utf-8") as f:
            json.dump(METADATA, f)
        with open(os.path.join(root, "result.json"), "w", encoding="utf-8") as f:
            json.dump(RUN, f)
        with open(os.path.join(root, "runs", "baseline", "run-1", "result.json"), "w",
                  encoding="utf-8") as f:
            json.dump(invocation_doc(), f)

    def test_validate_evidence_catches_a_bad_record(self):
        self.validate_evidence_on_teardown = False
        root = self.path("ev")
        self.write_evidence(root)
        self.assertTrue(schemas.validate_evidence(self, root))
        bad = invocation_doc()
        bad["status"] = "passed"
        with open(os.path.join(root, "runs", "baseline", "run-1", "result.json"), "w",
                  encoding="utf-8") as f:
            json.dump(bad, f)
        with self.assertRaises(self.failureException) as cm:
            schemas.validate_evidence(self, root)
        self.assertIn("runs/baseline/run-1/result.json", str(cm.exception))
        self.assertIn("status", str(cm.exception))

    def test_validate_evidence_catches_a_missing_file(self):
        self.validate_evidence_on_teardown = False
        root = self.path("ev")
        self.write_evidence(root)
        os.remove(os.path.join(root, "plan.json"))
        with self.assertRaises(self.failureException):
            schemas.validate_evidence(self, root)


@unittest.skipUnless(schemas.AVAILABLE, schemas.WHY_UNAVAILABLE)
@unittest.skipUnless(common.ABEV and os.access(common.ABEV, os.X_OK), "$ABEV is not built")
class RealEvidenceTest(AbevTestCase):
    """What the real abev writes matches the schemas."""

    def test_demo_plan_is_accepted(self):
        self.abev("run", DEMO_PLAN, "--out", self.path("dry"), "--dry-run", check=0)

    def test_passing_and_failing_runs(self):
        plan = self.write_plan({
            "schema": "abev.plan/1", "name": "schema check",
            "variants": [
                {"name": "ok", "command": ["sh", "-c", "echo hi"]},
                {"name": "bad", "command": ["sh", "-c", "exit 3"], "env": {"X": "{variant}"}},
            ],
            "schedule": {"warmups": 1, "runs": 2, "order": "reverse"},
            "results": {"files": "{run_dir}/*.trx", "min_executed": 0},
            "load": {"max_cpu_wait_pct": 100, "max_foreign_cpu": 64, "max_repeats": 0},
        })
        out = self.path("out")
        self.abev("run", plan, "--out", out, "--quiet", check=1)
        self.assertTrue(schemas.validate_evidence(self, out))
        res = self.load("out", "result.json")
        # A variant failed its warmup and its first run alike: abev stopped there.
        self.assertEqual(len(res["invocations"]), 4)
        self.assertTrue(any("abev stopped the plan after round 1: every run of" in n
                            for n in res["notes"]), res["notes"])

    @unittest.skipUnless(common.DEMO and os.access(common.DEMO, os.X_OK),
                         "$ABEV_DEMO is not built")
    def test_demo_suite_run(self):
        plan = self.write_plan({
            "schema": "abev.plan/1", "name": "demo once",
            "variants": [
                {"name": n, "command": [common.DEMO, "--trx", "{run_dir}/demo.trx"],
                 "env": {"DEMO_IMPL": n}} for n in ("baseline", "candidate")],
            "schedule": {"runs": 1},
            "results": {"files": "{run_dir}/*.trx", "min_executed": 3},
            "load": {"max_cpu_wait_pct": 100, "max_foreign_cpu": 64, "max_repeats": 0},
        })
        out = self.path("out")
        self.abev("run", plan, "--out", out, "--quiet", check=0)
        self.assertTrue(schemas.validate_evidence(self, out))
        for inv in self.load("out", "result.json")["invocations"]:
            self.assertTrue(os.path.isfile(os.path.join(out, inv["dir"], "demo.trx")))

    def test_the_demo_plan_itself(self):
        """examples/demo/plan.json as make demo runs it, signed: every JSON file it
        writes matches its schema (checked again on teardown)."""
        self.abev("keygen", "--out", self.path("k"), check=0)
        cp = self.abev("run", DEMO_PLAN, "--out", self.path("demo"), "--quiet",
                       "--key", self.path("k.key"))
        # 5: the demo's candidate is rejected by its memory gate, as designed;
        # 1: a noisy machine lost a slot.
        self.assertIn(cp.returncode, (1, 5), cp.stderr)
        if cp.returncode == 5:
            self.assertEqual(self.load("demo", "result.json")["comparison"]["decision"],
                             "rejected")
        self.assertTrue(schemas.validate_evidence(self, self.path("demo")))
        self.abev("verify", self.path("demo"), "--pubkey", self.path("k.pub"), check=0)

    def test_results_json_matches_its_schema(self):
        corpus = os.path.join(common.SRC, "..", "shared", "corpus")
        files = sorted(glob.glob(os.path.join(corpus, "*", "*")))
        files = [f for f in files if f.endswith((".trx", ".xml"))]
        if not files:
            self.skipTest(f"no corpus at {corpus}")
        for args in ((), ("--min-executed", "1")):
            cp = self.abev("results", "--json", *args, *files, check=0)
            doc = json.loads(cp.stdout)
            self.assertEqual(schemas.errors("results", doc), [])
            self.assertEqual(doc["total"]["files"], len(files))


if __name__ == "__main__":
    unittest.main()
