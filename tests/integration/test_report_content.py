"""What the report and the evidence record beyond the figures: the
environment a plan or variants file set, the names of failed tests, and
how to reproduce the run (the directory it ran from, the plan's SHA-256)."""
import hashlib
import os
import subprocess

from common import ABEV, DEMO, HELPER, AbevTestCase, helper_plan


class ReportContent(AbevTestCase):
    def test_variants_file_environment_is_recorded(self):
        with open(self.path("variants.txt"), "w") as f:
            f.write("baseline|SDK=1.5|\ncandidate|SDK=2.0 GC=server|\n")
        plan = {
            "schema": "abev.plan/1", "name": "env",
            "base": {"command": [HELPER, "env", "SDK", "GC"], "env": {"MODE": "{variant}"}},
            "variants_file": "variants.txt",
            "schedule": {"runs": 1},
            "load": {"max_cpu_wait_pct": 100, "max_foreign_cpu": 64, "max_repeats": 0},
        }
        p = self.write_plan(plan)
        self.abev("run", p, "--out", self.path("ev"), check=0)
        md = self.load("ev", "metadata.json")
        env = {v["name"]: v["env"] for v in md["variants"]}
        self.assertEqual(env["baseline"], {"MODE": "{variant}", "SDK": "1.5"})
        self.assertEqual(env["candidate"], {"MODE": "{variant}", "SDK": "2.0", "GC": "server"})
        report = open(self.path("ev", "report.md"), encoding="utf-8").read()
        self.assertIn("**candidate** in `", report)
        self.assertIn("- environment set by the plan: MODE={variant}, SDK=2.0, GC=server\n",
                      report)

    def test_the_comparison_says_which_time_to_read(self):
        # Issue 28 §2: one paragraph on what wall, cpu and wall_own mean and
        # when wall alone can be trusted, before the per-metric tables.
        p = self.write_plan(helper_plan([("a", ["exit", "0"]), ("b", ["exit", "0"])]))
        self.abev("run", p, "--out", self.path("ev"), "--unsigned", check=0)
        report = open(self.path("ev", "report.md"), encoding="utf-8").read()
        para = report[report.index("**Which time to read.**"):report.index("### wall")]
        for word in ("`wall` is what a user waits", "`cpu` is the CPU time",
                     "`wall_own` is wall less the time", "read and gate `wall_own` or `cpu`"):
            self.assertIn(word, para)

    def test_reproduce_names_the_directory_and_the_plan(self):
        p = self.write_plan(helper_plan([("a", ["exit", "0"])]))
        with open(p, "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()
        cp = subprocess.run([ABEV, "run", "plan.json", "--out", "ev", "--unsigned"],
                            cwd=self.tmp, capture_output=True, text=True,
                            stdin=subprocess.DEVNULL)
        self.assertEqual(cp.returncode, 0, cp.stderr)
        res = self.load("ev", "result.json")
        self.assertEqual(res["report"]["plan_sha256"], digest)
        self.assertEqual(res["report"]["cwd"], os.path.realpath(self.tmp))
        report = open(self.path("ev", "report.md"), encoding="utf-8").read()
        section = report.split("## Reproduce")[1].split("## ")[0]
        self.assertIn(f"SHA-256 `{digest}`", section)
        self.assertIn(f"cd {os.path.realpath(self.tmp)}\nabev run plan.json --out NEW_DIR "
                      "--unsigned\n", section)

    def test_what_ran_shows_the_run_directory_as_the_plan_names_it(self):
        # The first run's own directory (warmup-1) is not what every run got: the
        # command is shown with {run_dir}, whether --out was relative or absolute,
        # and a path that only begins like it (run-10 beside run-1) is left alone.
        for out in ("ev", "./ev-slash/", self.path("ev-abs")):
            plan = helper_plan([("a", ["exit", "0"])])
            plan["variants"][0]["command"] = [
                "sh", "-c", ": \"$1\" \"$2\"", "sh", "log={run_dir}/x.trx",
                "{run_dir}0/y"]
            plan["schedule"]["warmups"] = 1
            p = self.write_plan(plan)
            cp = subprocess.run([ABEV, "run", p, "--out", out, "--unsigned"], cwd=self.tmp,
                                capture_output=True, text=True, stdin=subprocess.DEVNULL)
            self.assertEqual(cp.returncode, 0, cp.stderr)
            report = open(os.path.join(self.tmp, out, "report.md"), encoding="utf-8").read()
            ran = report.split("## What ran")[1].split("## ")[0]
            self.assertIn("log={run_dir}/x.trx", ran)
            self.assertIn("/runs/a/warmup-10/y", ran)
            self.assertNotIn("warmup-1/", ran)
            os.unlink(p)

    def test_code_spans_show_names_as_they_are(self):
        # Inside a code span Markdown escapes nothing: an underscore, a backslash
        # and a backtick in a directory's name show as they are (a fence longer
        # than any run of backticks), and a line break is shown, not obeyed.
        odd = self.path("node_modules", "a\\b`c")
        os.makedirs(odd)
        plan = helper_plan([("a", ["exit", "0"])])
        plan["variants"][0]["cwd"] = odd
        self.run_plan(plan)
        report = open(self.path("ev", "report.md"), encoding="utf-8").read()
        env = report.split("## Environment")[1].split("## ")[0]
        self.assertIn(f"**a** in ``{os.path.realpath(odd)}``", env)
        self.assertNotIn("node\\_modules", env)
        # Near the top, what each variant ran: its command line, directory and the
        # environment the plan set; the statistics detail is in the appendix at the end.
        ran = report.split("## What ran")[1].split("## ")[0]
        argv = " ".join(helper_plan([("a", ["exit", "0"])])["variants"][0]["command"])
        self.assertIn(f"- **a**: `{argv}`, in ``{os.path.realpath(odd)}``", ran)
        order = [report.index(h) for h in ("## Verdict", "## What ran", "## Comparison",
                                           "## Appendix: statistics", "## Invocations")]
        self.assertEqual(order, sorted(order))

    def test_failed_test_names_are_recorded(self):
        if not (DEMO and os.access(DEMO, os.X_OK)):
            self.skipTest("the demo suite is not built")
        plan = {
            "schema": "abev.plan/1", "name": "failing",
            "variants": [{"name": "a", "command": [DEMO, "--trx", "{run_dir}/s.trx"],
                          "env": {"DEMO_IMPL": "baseline", "DEMO_FAIL": "sort_uint32"}}],
            "schedule": {"runs": 1},
            "results": {"files": "{run_dir}/*.trx"},
            "allowed_exit_codes": [0, 1],
            "load": {"max_cpu_wait_pct": 100, "max_foreign_cpu": 64, "max_repeats": 0},
        }
        cp, res = self.run_plan(plan, None)
        inv = res["invocations"][0]
        self.assertGreaterEqual(inv["tests"]["failed"] + inv["tests"]["errors"], 1, cp.stderr)
        # Named by class and method: the demo's TRX gives its class in TestDefinitions.
        self.assertIn("DemoSuite.sort_uint32", inv["failed_tests"])
        self.assertEqual(inv["failed_tests_omitted"], 0)


class CustomTemplate(AbevTestCase):
    """A plan's own report template: rendered, kept in the evidence, rendered
    again by abev report; a broken one refused before anything runs."""

    TEMPLATE = ("# {{title}}: {{decision}}\n"
                "{{#metrics}}\n"
                "- {{name}}{{#rows}} {{variant}}={{median}}{{/rows}}\n"
                "{{/metrics}}\n")

    def plan(self, template_name="mine.md"):
        # 6 runs: the fewest a budget's 95 % interval of the median allows.
        plan = helper_plan([("a", ["exit", "0"]), ("b", ["exit", "0"])], runs=6,
                           gates={"wall": {"budget": 60000}})
        plan["report"] = {"template": template_name}
        return self.write_plan(plan)

    def test_the_plans_template_is_used_and_kept(self):
        with open(self.path("mine.md"), "w") as f:
            f.write(self.TEMPLATE)
        self.abev("run", self.plan(), "--out", self.path("ev"), check=0)
        report = open(self.path("ev", "report.md"), encoding="utf-8").read()
        lines = report.splitlines()
        self.assertEqual(lines[0], "# t: accepted: all 1 gate passed")
        self.assertEqual([ln.split(" ")[1] for ln in lines[1:]], ["wall", "cpu", "max\\_rss",
                                                                "wall\\_own"])
        self.assertRegex(lines[1], r"^- wall a=\S+ \S+ b=\S+ \S+$")
        with open(self.path("ev", "report-template.md")) as f:
            self.assertEqual(f.read(), self.TEMPLATE)
        self.assertEqual(self.load("ev", "result.json")["report"]["template"],
                         "report-template.md")
        cp = subprocess.run([ABEV, "report", self.path("ev")], capture_output=True)
        self.assertEqual(cp.stdout.decode("utf-8"), report)

    def test_a_broken_template_is_a_plan_error(self):
        cases = [
            ("{{#metrics}}\n{{name}}\n", "mine.md:1: '{{#metrics}}' is never closed"),
            ("a\n\n{{#x}}{{/y}}\n", "mine.md:3:"),
            ("{{", "mine.md:1:"),
        ]
        for text, want in cases:
            with self.subTest(text=text):
                with open(self.path("mine.md"), "w") as f:
                    f.write(text)
                cp = self.abev("run", self.plan(), "--out", self.path("ev"), check=2)
                self.assertIn("report.template: " + want, cp.stderr)
                self.assertFalse(os.path.exists(self.path("ev")))
        cp = self.abev("run", self.plan("missing.md"), "--out", self.path("ev"), check=2)
        self.assertIn("report.template: cannot read 'missing.md'", cp.stderr)

    def test_an_unknown_name_falls_back_to_abevs_own_report(self):
        with open(self.path("mine.md"), "w") as f:
            f.write("# {{title}}\n\n{{colour}}\n")
        self.abev("run", self.plan(), "--out", self.path("ev"), check=0)
        report = open(self.path("ev", "report.md"), encoding="utf-8").read()
        self.assertIn("**The plan's report template could not be used** (report-template.md:3: "
                      "unknown name 'colour'", report)
        self.assertIn("## Verdict", report)
        cp = subprocess.run([ABEV, "report", self.path("ev")], capture_output=True)
        self.assertEqual(cp.stdout.decode("utf-8"), report)


class PlotsAndHosts(AbevTestCase):
    def test_a_plot_per_metric_and_one_of_the_runs(self):
        import shutil
        plan = helper_plan([("a", ["exit", "0"]), ("b", ["exit", "0"])], runs=2)
        plan["metrics"] = [{"name": "p99 latency", "source": "process", "field": "wall"}]
        _, res = self.run_plan(plan, 0, "--host-label", "h")
        files = sorted(os.listdir(self.path("ev", "plots")))
        self.assertEqual(files, ["cpu.svg", "max_rss.svg", "p99_latency.svg", "runs.svg",
                                 "wall.svg", "wall_own.svg"])
        report = open(self.path("ev", "report.md"), encoding="utf-8").read()
        for f in files:
            self.assertIn(f"](plots/{f})", report)
            with open(self.path("ev", "plots", f), encoding="utf-8") as fh:
                svg = fh.read()
            self.assertTrue(svg.startswith("<svg") or svg.startswith("<?xml"), f)
            if f != "runs.svg":
                # Every recorded run is drawn: one mark per run of each variant.
                self.assertEqual(svg.count('class="run counted'), 4, f)
                # Inline in the report, and titled in the unit its axis is drawn in.
                name = f[:-4].replace('_', ' ')
                for builtin in ("max_rss", "wall_own"):
                    name = name.replace(builtin.replace('_', ' '), builtin)
                self.assertIn(f"\n![{name}: "
                              f"each recorded run and each variant's median](plots/{f})\n",
                              report.replace("max\\_rss", "max_rss")
                              .replace("wall\\_own", "wall_own"))
                import re
                title = re.search(r"<title>[^<]*\(([^)<]+)\)</title>", svg)
                self.assertIsNotNone(title, svg[:400])
                self.assertIn(f">{title.group(1)}<", svg.split("</title>", 1)[1], f)
        if shutil.which("xmllint"):
            cp = subprocess.run(["xmllint", "--noout", *[self.path("ev", "plots", f)
                                                         for f in files]],
                                capture_output=True, text=True)
            self.assertEqual((cp.returncode, cp.stderr), (0, ""))
        self.assertEqual(res["status"], "completed")

    def test_two_hosts_side_by_side_and_other_plans_refused(self):
        p = self.write_plan(helper_plan([("a", ["exit", "0"]), ("b", ["exit", "0"])], runs=6,
                                        gates={"wall": {"budget": 600000}}))
        self.run_plan(p, 0, "--host-label", "alpha", out="ev1")
        self.run_plan(p, 0, "--host-label", "beta", out="ev2")
        cp = self.abev("report", self.path("ev1"), self.path("ev2"), "--out",
                       self.path("board.md"), check=0)
        board = open(self.path("board.md"), encoding="utf-8").read()
        self.assertIn("**Combined decision: accepted.**", board)
        self.assertIn("| Variant | alpha | beta |", board)
        for label in ("alpha", "beta"):
            self.assertRegex(board, rf"\n\| {label} \| accepted: all 1 gate passed \| completed \|")
        other = self.write_plan(helper_plan([("a", ["exit", "0"]), ("b", ["exit", "0"])],
                                            runs=1), name="other.json")
        self.run_plan(other, 0, "--host-label", "gamma", out="ev3")
        cp = self.abev("report", self.path("ev1"), self.path("ev3"), check=2)
        self.assertIn("was made from another plan", cp.stderr)
