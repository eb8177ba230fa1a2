"""Where a command's output goes: a variant's "output" and abev bench's
--output, with hyperfine's meanings. log (the default) keeps the run's
logs; null sends both streams to /dev/null and records nothing; pipe
reads them and keeps no log but their size and SHA-256; inherit hands the
command abev's own stdout and stderr; a file with a '/' takes the whole
stdout, rewritten at each run, and is refused when it is a symlink or a
hard link. Every stream abev reads is sized and hashed as a whole, which
the tests compare with hashlib over the bytes the helper prints."""
import hashlib
import os
import subprocess

from common import ABEV, HELPER, AbevTestCase, flood_whole, helper_plan

MiB = 1024 * 1024
EMPTY = flood_whole(0)


class Output(AbevTestCase):
    def plan_with(self, output, args=("flood", str(MiB)), runs=1, **extra):
        plan = helper_plan([("f", list(args))], runs=runs, **extra)
        plan["variants"][0]["output"] = output
        return self.write_plan(plan)

    def run_plan(self, p):
        r = self.abev("run", p, "--out", self.path("ev"), "--quiet")
        self.assertEqual(r.returncode, 0, r.stderr)
        return self.load("ev", "result.json")["invocations"]

    def bench(self, *args):
        return subprocess.run([ABEV, "bench", "--max-cpu-wait-pct", "100", "--unsigned",
                               "--quiet", *args], capture_output=True, text=True,
                              timeout=300, cwd=self.tmp, stdin=subprocess.DEVNULL)

    def report(self):
        with open(self.path("ev", "report.md"), encoding="utf-8") as f:
            return f.read()

    def test_pipe_keeps_no_log_but_the_size_and_hash(self):
        invs = self.run_plan(self.plan_with("pipe"))
        inv = invs[0]
        self.assertEqual(inv["output"], "pipe")
        self.assertEqual(inv["logs"]["stdout"],
                         {"bytes_written": 0, "bytes_dropped": 0, "truncated": False,
                          "bytes_left_out": 0, **flood_whole(MiB)})
        self.assertEqual(inv["logs"]["stdout"]["bytes_total"], 1048576)
        self.assertEqual(inv["logs"]["stderr"]["bytes_total"], 0)
        self.assertEqual(inv["logs"]["stderr"]["sha256"], EMPTY["sha256"])
        run_dir = self.path("ev", inv["dir"])
        self.assertFalse(os.path.exists(os.path.join(run_dir, "test.log")))
        self.assertFalse(os.path.exists(os.path.join(run_dir, "stderr.log")))
        self.assertIn("its output: `pipe`", self.report())

    def test_pipe_hashes_stderr_too(self):
        inv = self.run_plan(self.plan_with("pipe", args=("stderr", "oops")))[0]
        self.assertEqual(inv["logs"]["stderr"]["bytes_total"], 4)
        self.assertEqual(inv["logs"]["stderr"]["sha256"], hashlib.sha256(b"oops").hexdigest())

    def test_null_records_nothing(self):
        inv = self.run_plan(self.plan_with("null"))[0]
        self.assertEqual(inv["output"], "null")
        for name in ("stdout", "stderr"):
            self.assertEqual(inv["logs"][name],
                             {"bytes_written": 0, "bytes_dropped": 0, "truncated": False,
                              "bytes_left_out": 0, "bytes_total": None, "sha256": None})
        self.assertFalse(os.path.exists(self.path("ev", inv["dir"], "test.log")))
        self.assertIn("its output: `null`", self.report())

    def test_null_or_pipe_refuse_a_stdout_metric(self):
        metric = {"name": "n", "source": "stdout", "unit": "ms", "pattern": "([0-9]+)"}
        for output in ("null", "pipe", "inherit", "./out.txt"):
            p = self.plan_with(output, metrics=[metric])
            r = self.abev("run", p, "--out", self.path("ev-" + output.strip("./")), "--quiet")
            self.assertEqual(r.returncode, 2, (output, r.stderr))
            self.assertIn("variants[0].output", r.stderr)
            self.assertIn("metric 'n'", r.stderr)
            self.assertFalse(os.path.exists(self.path("ev-" + output.strip("./"))))
        # A stderr metric reads stderr.log, which a file output still keeps.
        stderr_metric = dict(metric, source="stderr")
        r = self.abev("run", self.plan_with("./out.txt", metrics=[stderr_metric]), "--dry-run")
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_file_holds_the_whole_stream_of_the_last_run(self):
        r = self.bench("--output=./out.bin", "-r", "2", "--out", "ev", f"{HELPER} flood {MiB}")
        self.assertEqual(r.returncode, 0, r.stderr)
        out = self.path("out.bin")
        with open(out, "rb") as f:
            data = f.read()
        # Truncated at each run, as hyperfine's File::create: one run's bytes, not two.
        self.assertEqual(len(data), MiB)
        self.assertEqual(hashlib.sha256(data).hexdigest(), flood_whole(MiB)["sha256"])
        invs = self.load("ev", "result.json")["invocations"]
        self.assertEqual(len(invs), 2)
        for inv in invs:
            self.assertEqual(inv["output"], os.path.realpath(out))
            self.assertEqual(inv["logs"]["stdout"],
                             {"bytes_written": MiB, "bytes_dropped": 0, "truncated": False,
                              "bytes_left_out": 0, **flood_whole(MiB)})
            self.assertFalse(os.path.exists(self.path("ev", inv["dir"], "test.log")))
            # stderr.log is made at its stream's first byte: the helper printed none there.
            self.assertEqual(inv["logs"]["stderr"]["bytes_total"], 0)
            self.assertFalse(os.path.exists(self.path("ev", inv["dir"], "stderr.log")))
        self.assertEqual(self.load("ev", "plan.json")["variants"][0]["output"],
                         os.path.realpath(out))
        self.assertIn("its stdout went whole to", self.report())

    def test_a_symlinked_or_hard_linked_file_is_refused_untouched(self):
        target = self.path("target")
        with open(target, "w") as f:
            f.write("keep\n")
        os.symlink(target, self.path("link"))
        os.link(target, self.path("hard"))
        for name in ("link", "hard"):
            r = self.bench("--output=./" + name, "-r", "1", "--out", "ev-" + name,
                           f"{HELPER} flood 100")
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertIn("output file", r.stderr)
            self.assertFalse(os.path.exists(self.path("ev-" + name)))
            with open(target) as f:
                self.assertEqual(f.read(), "keep\n")

    def test_a_directory_swapped_for_a_link_does_not_move_the_file(self):
        # The first run replaces out/ by a link to victim/, which holds a file
        # of the output's name; abev keeps writing into the directory it
        # opened before any run (now out.orig/) and leaves victim/ alone.
        os.mkdir(self.path("out"))
        os.mkdir(self.path("victim"))
        with open(self.path("victim", "o.txt"), "w") as f:
            f.write("keep\n")
        swap = ("[ -L out ] || { mv out out.orig && ln -s victim out; }; "
                "echo printed-by-run")
        r = self.bench("--output=./out/o.txt", "-r", "3", "--out", "ev", "sh -c " + repr(swap))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(os.path.islink(self.path("out")))
        with open(self.path("victim", "o.txt")) as f:
            self.assertEqual(f.read(), "keep\n")
        with open(self.path("out.orig", "o.txt")) as f:
            self.assertEqual(f.read(), "printed-by-run\n")
        self.assertEqual(len(self.load("ev", "result.json")["invocations"]), 3)

    def test_inherit_hands_over_abev_s_own_streams(self):
        r = self.bench("--output=inherit", "-r", "1", "--out", "ev",
                       f"{HELPER} flood 130", f"{HELPER} stderr said-on-stderr")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(("x" * 64 + "\n") * 2, r.stdout)
        self.assertIn("said-on-stderr", r.stderr)
        for inv in self.load("ev", "result.json")["invocations"]:
            self.assertEqual(inv["output"], "inherit")
            self.assertIsNone(inv["logs"]["stdout"]["sha256"])

    def test_one_output_per_command_and_unknown_words(self):
        r = self.bench("--output=pipe", "--output=null", "-r", "1", "--out", "ev",
                       f"{HELPER} flood 10", f"{HELPER} flood 20")
        self.assertEqual(r.returncode, 0, r.stderr)
        by = {i["output"]: i for i in self.load("ev", "result.json")["invocations"]}
        self.assertEqual(by["pipe"]["logs"]["stdout"]["bytes_total"], 10)
        self.assertIsNone(by["null"]["logs"]["stdout"]["bytes_total"])
        r = self.bench("--output=pipe", "--output=null", "--output=pipe", "-r", "1",
                       f"{HELPER} flood 10", f"{HELPER} flood 20")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("--output", r.stderr)
        r = self.bench("--output=out.txt", "-r", "1", f"{HELPER} flood 10")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("unknown output 'out.txt'", r.stderr)
        self.assertFalse(os.path.exists(self.path("out.txt")))


class LogsMadeAtFirstByte(AbevTestCase):
    """A log is made when its stream's first byte arrives, while the command
    runs: a silent stream leaves none, and what the run put at a log's name
    first is never written into, followed or blocked on."""

    def run_sh(self, script):
        plan = {"schema": "abev.plan/1", "name": "first-byte",
                "variants": [{"name": "s", "command": ["sh", "-c", script]}],
                "schedule": {"warmups": 0, "runs": 1, "gap_seconds": 0},
                "load": {"max_cpu_wait_pct": 100, "max_repeats": 0}}
        r = subprocess.run([ABEV, "run", self.write_plan(plan), "--out", self.path("ev"),
                            "--quiet", "--unsigned"], capture_output=True, text=True,
                           timeout=120, stdin=subprocess.DEVNULL)
        return r, self.load("ev", "result.json")["invocations"][0]

    def test_a_silent_run_leaves_no_log(self):
        r, inv = self.run_sh("exit 0")
        self.assertEqual(r.returncode, 0, r.stderr)
        for stream in ("stdout", "stderr"):
            self.assertEqual(inv["logs"][stream]["bytes_total"], 0)
            self.assertEqual(inv["logs"][stream]["sha256"], EMPTY["sha256"])
        # Its directory, left empty, went at the run's end.
        self.assertFalse(os.path.exists(self.path("ev", inv["dir"])))
        cp = self.abev("verify", self.path("ev"), check=None)
        self.assertIn("tampered:    none", cp.stdout)

    def test_what_the_run_put_at_a_logs_name_first_is_not_written(self):
        for what, make in (("fifo", 'mkfifo "$ABEV_RUN_DIR/test.log"'),
                           ("symlink", f'ln -s {self.path("target")} "$ABEV_RUN_DIR/test.log"'),
                           ("file", 'printf planted > "$ABEV_RUN_DIR/test.log"')):
            with self.subTest(what=what):
                with open(self.path("target"), "w") as f:
                    f.write("outside")
                if os.path.exists(self.path("ev")):
                    subprocess.run(["rm", "-rf", self.path("ev")], check=True)
                r, inv = self.run_sh(make + "; echo hello")
                self.assertIn("the run put something at that name first", r.stderr)
                out = inv["logs"]["stdout"]
                self.assertEqual(out["bytes_written"], 0)
                self.assertEqual(out["bytes_dropped"], 6)
                self.assertEqual(out["sha256"], hashlib.sha256(b"hello\n").hexdigest())
                with open(self.path("target")) as f:
                    self.assertEqual(f.read(), "outside")
