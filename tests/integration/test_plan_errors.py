"""Broken plans: `abev run PLAN --out DIR` must refuse each one with exit
code 2 and exactly one line on stderr that names the file and the JSON path
(or file:line), and must not create DIR. A plan with several problems gets
them all in one run, each with the nearest known name where there is one."""
import json
import os

from common import AbevTestCase


def plan(**over):
    """A valid plan with two variants; keyword arguments replace or add keys
    (a value of None removes the key)."""
    p = {
        "schema": "abev.plan/1",
        "name": "broken",
        "variants": [
            {"name": "a", "command": ["true"]},
            {"name": "b", "command": ["true"]},
        ],
        "schedule": {"runs": 1},
    }
    for k, v in over.items():
        if v is None:
            p.pop(k, None)
        else:
            p[k] = v
    return p


def variant(**over):
    v = {"name": "a", "command": ["true"]}
    v.update(over)
    return v


MALFORMED = '{\n  "schema": "abev.plan/1",\n  "name": "x",\n  "variants": [\n' \
            '    {"name": "a", "command": ["true"]}\n  ]\n  "schedule": {}\n}\n'

# (test name, plan, variants file content or None, fragments the line must hold)
CASES = [
    ("unknown_key_top", plan(colour="red"), None,
     ["colour: unknown key (expected one of: schema, name,"]),
    ("unknown_key_schedule", plan(schedule={"runs": 1, "ordr": "reverse"}), None,
     ["schedule.ordr: unknown key, did you mean 'order'? (expected one of: warmups, runs, "
      "until, min_rounds, max_rounds, looks, order, seed, gap_seconds, timeout_seconds, "
      "step_timeout_seconds, kill_grace_seconds, cpus, prepare, setup, cleanup)"]),
    ("until_unknown", plan(schedule={"until": "done", "max_rounds": 8},
                           gates={"wall": {"max_regression_pct": 5}}), None,
     ["schedule.until: unknown value 'done' (expected \"runs\" or \"decided\")"]),
    ("until_without_max_rounds", plan(schedule={"until": "decided"},
                                      gates={"wall": {"max_regression_pct": 5}}), None,
     ["schedule.max_rounds: required with until \"decided\""]),
    ("until_with_runs", plan(schedule={"until": "decided", "runs": 4, "max_rounds": 8},
                             gates={"wall": {"max_regression_pct": 5}}), None,
     ["schedule.runs: with until \"decided\" the number of rounds is min_rounds to "
      "max_rounds: leave runs out"]),
    ("until_without_a_gate", plan(schedule={"until": "decided", "max_rounds": 8}), None,
     ["schedule.until: \"decided\" needs a gate to decide"]),
    ("looks_descending", plan(schedule={"until": "decided", "max_rounds": 20,
                                        "looks": [12, 8]},
                              gates={"wall": {"max_regression_pct": 5}}), None,
     ["schedule.looks: [1] 8: the looks must ascend"]),
    ("looks_without_until", plan(schedule={"runs": 4, "looks": [2]}), None,
     ["schedule: min_rounds, max_rounds and looks are for until \"decided\""]),
    ("unknown_key_variant", plan(variants=[variant(), variant(name="b", nmae="c")]), None,
     ["variants[1].nmae: unknown key"]),
    ("wrong_type", plan(schedule={"runs": "3"}), None,
     ["schedule.runs: expected an integer", "found a string"]),
    ("wrong_type_command", plan(variants=[variant(command="true")]), None,
     ["variants[0].command: expected a non-empty array of strings, found a string"]),
    ("empty_variants", plan(variants=[]), None,
     ["variants: expected a non-empty array of variant objects"]),
    ("no_variants", plan(variants=None), None, ["variants: missing"]),
    ("duplicate_names", plan(variants=[variant(), variant(name="b"), variant()]), None,
     ["variants[2].name: duplicate variant name 'a' (also variants[0])"]),
    ("runs_zero", plan(schedule={"runs": 0}), None,
     ["schedule.runs: expected an integer", "found 0"]),
    ("runs_fraction", plan(schedule={"runs": 1.5}), None,
     ["schedule.runs: expected an integer", "found 1.5"]),
    ("negative_gap", plan(schedule={"runs": 1, "gap_seconds": -1}), None,
     ["schedule.gap_seconds: expected a number >= 0", "found -1"]),
    ("zero_timeout", plan(schedule={"runs": 1, "timeout_seconds": 0}), None,
     ["schedule.timeout_seconds: expected a number > 0"]),
    ("zero_step_timeout", plan(schedule={"runs": 1, "step_timeout_seconds": 0}), None,
     ["schedule.step_timeout_seconds: expected a number > 0"]),
    ("unknown_order", plan(schedule={"runs": 1, "order": "random"}), None,
     ["schedule.order: unknown order 'random' (expected one of: balanced, alternate, reverse, "
      "shuffle, sequential)"]),
    ("missing_command", plan(variants=[{"name": "a"}]), None,
     ["variants[0].command: missing"]),
    ("empty_command", plan(variants=[variant(), variant(name="b", command=[])]), None,
     ["variants[1].command: expected a non-empty array of strings"]),
    ("non_string_argument", plan(variants=[variant(command=["true", 3])]), None,
     ["variants[0].command[1]: expected a string, found a number"]),
    ("unknown_placeholder", plan(variants=[variant(command=["true", "x", "{foo}"])]), None,
     ["variants[0].command[2]: unknown placeholder '{foo}' "
      "(known: {run_dir}, {variant}, {phase}, {round})"]),
    ("unknown_placeholder_env", plan(variants=[variant(env={"X": "{Variant}"})]), None,
     ["variants[0].env.X: unknown placeholder '{Variant}'"]),
    ("wrong_schema", plan(schema="abev.plan/9"), None,
     ["schema: expected \"abev.plan/1\""]),
    ("missing_cwd", plan(variants=[variant(cwd="no-such-dir")]), None,
     ["variants[0].cwd: directory '", "no-such-dir' does not exist"]),
    ("newline_in_name", plan(variants=[variant(name="a\nb")]), None,
     ["variants[0].name: invalid variant name"]),
    ("variants_line_without_name",
     plan(variants=None, base={"command": ["true"]}, variants_file="vars.txt"),
     "# variants\nfast|A=1|--x\n\n|B=2|--y\n",
     ["vars.txt:4: missing variant name (expected 'name|ENV=V ...|extra args')"]),
    ("variants_line_bad_assignment",
     plan(variants=None, base={"command": ["true"]}, variants_file="vars.txt"),
     "fast|FOO|--x\n", ["vars.txt:1: 'FOO' is not an ENV=VALUE assignment"]),
    ("variants_line_unterminated_quote",
     plan(variants=None, base={"command": ["true"]}, variants_file="vars.txt"),
     "fast||--x 'open\r\n", ["vars.txt:1: unterminated ' quote"]),
    ("variants_file_without_base", plan(variants_file="vars.txt"), "c\n",
     ["variants_file: needs \"base\""]),
    # json.dump writes the NUL as the escape \u0000, which cJSON would cut the string at.
    ("nul_in_command", plan(variants=[variant(command=["true", "a\u0000b"])]), None,
     ["variants[0].command[1]: \\u0000 (a NUL character) in a string"]),
    ("nul_in_env_key", plan(variants=[variant(env={"A\u0000B": "1"})]), None,
     ["variants[0].env: a key: \\u0000 (a NUL character) in a string"]),
    ("control_in_plan_name", plan(name="x\x1b[2J"), None,
     ["name: U+001B (a control character) in 'x\\x1b[2J'"]),
    ("variants_line_fourth_field",
     plan(variants=None, base={"command": ["true"]}, variants_file="vars.txt"),
     "fast|A=1|--x|--y\n",
     ["vars.txt:1: a fourth field '|--y' (expected at most three fields"]),
    # Names become directories: 'a' and 'A' are one directory where case is ignored.
    ("names_equal_ignoring_case", plan(variants=[variant(), variant(name="A")]), None,
     ["variants[1].name: duplicate variant name 'A' ignoring case (also 'a' at variants[0])"]),
    ("variants_line_variable_twice",
     plan(variants=None, base={"command": ["true"], "env": {"A": "0"}}, variants_file="vars.txt"),
     "fast|A=1 B=2 A=3|\n", ["vars.txt:1: variable 'A' given twice"]),
]


class PlanErrorTest(AbevTestCase):
    def refuse(self, plan_path, named, fragments, env=None):
        """Runs abev on plan_path and checks the one-line refusal."""
        out = self.path("evidence")
        cp = self.abev("run", plan_path, "--out", out, timeout=60, env=env)
        self.assertEqual(cp.returncode, 2,
                         f"exit {cp.returncode}\nstdout:\n{cp.stdout}\nstderr:\n{cp.stderr}")
        lines = cp.stderr.splitlines()
        self.assertEqual(len(lines), 1, f"stderr is not one line:\n{cp.stderr}")
        line = lines[0]
        self.assertTrue(line.startswith("abev: error: "), line)
        self.assertIn(named, line)
        for f in fragments:
            self.assertIn(f, line)
        self.assertFalse(os.path.exists(out), f"{out} was created")
        return line

    def test_broken_plans(self):
        for name, p, vars_text, fragments in CASES:
            with self.subTest(name):
                plan_path = self.write_plan(p, name=f"{name}.json")
                named = plan_path
                if vars_text is not None:
                    with open(self.path("vars.txt"), "w", encoding="utf-8", newline="") as f:
                        f.write(vars_text)
                    if fragments[0].startswith("vars.txt:"):
                        named = self.path("vars.txt")
                line = self.refuse(plan_path, named, fragments)
                # The path follows the file: "<file>: <json path>: ..." or "<file>:<line>: ..."
                self.assertIn(named + ":", line)

    def test_malformed_json_names_the_line(self):
        plan_path = self.write_plan(MALFORMED)
        # The comma after the "variants" array (line 6) is missing: the parser
        # stops at the next key, on line 7.
        self.refuse(plan_path, plan_path + ":7:", ["malformed JSON"])

    def test_trailing_garbage(self):
        plan_path = self.write_plan('{"schema": "abev.plan/1"}\n}\n')
        self.refuse(plan_path, plan_path + ":2:1:", ["malformed JSON near '}'"])

    def test_invalid_utf8_is_refused_before_anything_runs(self):
        # Byte 0xFF in the name went into result.json and report.md as it came.
        plan_path = self.path("ff.json")
        text = json.dumps(plan(name="nameXX"), indent=2).replace("XX", "\udcff")
        with open(plan_path, "wb") as f:
            f.write(text.encode("utf-8", errors="surrogateescape"))
        self.refuse(plan_path, plan_path + ":3:16:",
                    ["name: byte 0xff is not UTF-8 (expected UTF-8 text)"])

    def test_names_of_plan_and_variants_file_are_escaped(self):
        # A newline or an ESC in a file name cannot split the one line of the refusal.
        d = self.path("we\nird")
        os.mkdir(d)
        plan_path = os.path.join(d, "p.json")
        with open(plan_path, "w", encoding="utf-8") as f:
            json.dump(plan(variants=None, base={"command": ["true"]},
                           variants_file="v\x1bx.txt"), f)
        with open(os.path.join(d, "v\x1bx.txt"), "w", encoding="utf-8") as f:
            f.write("a|||x\n")
        line = self.refuse(plan_path, self.path("we\\nird/v\\x1bx.txt:1: a fourth field"), [])
        self.assertNotIn("\x1b", line)

    def test_plan_named_fifo_is_refused_without_blocking(self):
        # A FIFO named as variants_file or report.template hung --dry-run (and a run)
        # in open(): plan-named files are opened non-blocking, regular files only.
        os.mkfifo(self.path("fifo"))
        for key, p in (("variants_file", plan(variants=None, base={"command": ["true"]},
                                                variants_file="fifo")),
                       ("report.template", plan(report={"template": "fifo"}))):
            with self.subTest(key):
                plan_path = self.write_plan(p, name=f"fifo-{key}.json")
                self.refuse(plan_path, plan_path, [f"{key}: cannot read '", "fifo': it is not "
                                                   "a regular file"])

    def test_variants_file_not_a_file_gets_one_error(self):
        # A directory, or /dev/zero, as variants_file gave its own error and then a
        # second, wrong one ("defines no variant"): one line now, naming the key.
        os.mkdir(self.path("vdir"))
        for given, why in ((self.path("vdir"), "it is a directory"),
                           ("/dev/zero", "it is not a regular file")):
            with self.subTest(given):
                plan_path = self.write_plan(plan(variants=None, base={"command": ["true"]},
                                                 variants_file=given), name="v.json")
                line = self.refuse(plan_path, plan_path,
                                   [f"variants_file: cannot read '{given}': {why}"])
                self.assertNotIn("defines no variant", line)

    def test_plan_named_symlink_is_followed(self):
        # The plan's author named the link (a template shared in a repository, say):
        # followed, as long as it leads to a regular file.
        with open(self.path("real.md"), "w", encoding="utf-8") as f:
            f.write("# report\n")
        os.symlink("real.md", self.path("link.md"))
        plan_path = self.write_plan(plan(report={"template": "link.md"}))
        self.abev("run", plan_path, "--dry-run", check=0)

    def test_nonexistent_plan(self):
        plan_path = self.path("no-such-plan.json")
        self.refuse(plan_path, f"'{plan_path}'", ["No such file or directory"])

    def test_plan_is_a_directory(self):
        os.mkdir(self.path("plandir"))
        self.refuse(self.path("plandir"), self.path("plandir"), ["is a directory"])

    def test_unreadable_plan(self):
        if os.geteuid() == 0:
            self.skipTest("root reads a mode 000 file anyway")
        plan_path = self.write_plan(plan())
        os.chmod(plan_path, 0)
        self.refuse(plan_path, f"'{plan_path}'", ["Permission denied"])

    def test_relative_plan_path_is_named_as_given(self):
        self.write_plan(plan(colour="red"), name="rel.json")
        cp_cwd = os.getcwd()
        os.chdir(self.tmp)
        try:
            line = self.refuse("rel.json", "rel.json: colour: unknown key", [])
        finally:
            os.chdir(cp_cwd)
        self.assertIn("error: rel.json: colour:", line)


class AllPlanErrorsTest(AbevTestCase):
    def run_refused(self, p, *extra):
        plan_path = self.write_plan(p)
        out = self.path("evidence")
        cp = self.abev("run", plan_path, "--out", out, *extra, timeout=60)
        self.assertEqual(cp.returncode, 2, cp.stderr)
        self.assertEqual(cp.stdout, "")
        self.assertFalse(os.path.exists(out), f"{out} was created")
        return plan_path, cp.stderr.splitlines()

    def test_three_typos_in_one_run(self):
        """Two misspelt keys in different objects and a misspelt enum value:
        all three reported at once, each with the file, the JSON path and
        the right suggestion, and nothing run."""
        marker = self.path("ran")
        p = plan(variants=[variant(command=["sh", "-c", f"touch {marker}"]),
                           {"name": "b", "comand": ["true"], "command": ["true"]}],
                 schedule={"runs": 1, "gap_secs": 1, "order": "alternat"})
        plan_path, lines = self.run_refused(p)
        want = [
            f"abev: error: {plan_path}: schedule.gap_secs: unknown key, did you mean "
            "'gap_seconds'?",
            f"abev: error: {plan_path}: schedule.order: unknown order 'alternat', did you "
            "mean 'alternate'?",
            f"abev: error: {plan_path}: variants[1].comand: unknown key, did you mean "
            "'command'?",
        ]
        self.assertEqual(len(lines), 3, "\n".join(lines))
        for w in want:
            self.assertEqual(sum(1 for line in lines if line.startswith(w)), 1,
                             f"{w!r} not once in:\n" + "\n".join(lines))
        self.assertFalse(os.path.exists(marker), "a variant ran")
        # The same with --dry-run, which also looks at the machine (test_plan_errors_once.py):
        # the variants that were read name nothing missing.
        cp = self.abev("run", plan_path, "--dry-run", timeout=60)
        self.assertEqual(cp.returncode, 2)
        self.assertEqual(len(cp.stderr.splitlines()), 3, cp.stderr)

    def test_no_suggestion_for_a_far_name(self):
        _, lines = self.run_refused(plan(colour="red", schedule={"runs": 1, "order": "random"}))
        self.assertEqual(len(lines), 2, lines)
        for line in lines:
            self.assertNotIn("did you mean", line)

    def test_many_errors_are_capped(self):
        """Past 20 messages the rest are counted, not printed."""
        p = plan(**{f"key{i:02}": i for i in range(25)})
        _, lines = self.run_refused(p)
        self.assertEqual(len(lines), 21, "\n".join(lines))
        self.assertTrue(all("unknown key" in line for line in lines[:20]))
        self.assertEqual(lines[20], "abev: error: ... and 5 more")

    def test_errors_in_variants_file_lines_together(self):
        with open(self.path("vars.txt"), "w", encoding="utf-8") as f:
            f.write("a|FOO|\nb||'open\nc|X={nope}|\n")
        _, lines = self.run_refused(plan(variants=None, base={"command": ["true"]},
                                         variants_file="vars.txt"))
        vars_path = self.path("vars.txt")
        self.assertEqual([line.split(": ")[2] for line in lines],
                         [f"{vars_path}:1", f"{vars_path}:2", f"{vars_path}:3"], lines)
