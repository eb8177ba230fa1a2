"""The paths abev is told to create: --out (run, bench, init, keygen, report,
export), --bundle and --save-plan. Each refusal exits 2 before anything runs
and leaves nothing behind; what abev creates it never lets replace a file, nor
land inside evidence, which is sealed and never rewritten."""
import os
import resource
import subprocess

from common import ABEV, AbevTestCase

QUICK = ("-r", "1", "--quiet", "--max-cpu-wait-pct", "100")


class OutPaths(AbevTestCase):
    def setUp(self):
        super().setUp()
        # One sealed evidence directory to aim at.
        self.ev = self.path("ev")
        self.abev("bench", "true", "true", *QUICK, "--out", self.ev, check=0)
        self.files_of_ev = sorted(os.listdir(self.ev))

    def assert_ev_untouched(self):
        self.assertEqual(sorted(os.listdir(self.ev)), self.files_of_ev)
        self.assertEqual(self.abev("verify", self.ev).returncode, 7)

    def test_nothing_is_created_inside_evidence(self):
        # Each of these wrote into the sealed evidence, which then failed verification.
        with open(self.path("plan.json"), "w", encoding="utf-8") as f:
            f.write('{"schema": "abev.plan/1", "name": "p", '
                    '"variants": [{"name": "a", "command": ["true"]}]}')
        for args in (("run", self.path("plan.json"), "--out", self.path("ev", "again"),
                      "--unsigned"),
                     ("bench", "true", "true", *QUICK, "--out", self.path("ev", "runs", "b")),
                     ("bench", "true", "true", *QUICK, "--out", self.path("b2"),
                      "--bundle", self.path("ev", "b.tar.gz")),
                     ("bench", "true", "true", *QUICK, "--out", self.path("b3"),
                      "--save-plan", self.path("ev", "p.json")),
                     ("keygen", "--out", self.path("ev", "k")),
                     ("pack", self.ev, "--out", self.path("ev", "runs", "ev.tar.gz")),
                     ("init", "--out", self.path("ev", "plots", "p.json")),
                     ("report", self.ev, "--out", self.path("ev", "runs", "r.md"))):
            with self.subTest(args[0]):
                cp = self.abev(*args, check=2)
                self.assertRegex(cp.stderr, "lies inside (an|the) evidence directory")
                self.assert_ev_untouched()
        self.assertEqual(sorted(os.listdir(self.tmp)), ["ev", "plan.json"])

    def test_report_and_export_never_overwrite(self):
        target = self.path("out.md")
        with open(target, "w", encoding="utf-8") as f:
            f.write("mine\n")
        for args in (("report", self.ev), ("export", self.ev, "--format", "csv")):
            with self.subTest(args[0]):
                cp = self.abev(*args, "--out", target, check=2)
                self.assertIn(f"'{target}' already exists: abev never overwrites a file",
                              cp.stderr)
                with open(target, encoding="utf-8") as f:
                    self.assertEqual(f.read(), "mine\n")
        self.abev("report", self.ev, "--out", self.path("new.md"), check=0)

    def test_trailing_slash_is_the_directory(self):
        # "--out DIR/" made DIR, then said that DIR already existed, and left it.
        cp = self.abev("bench", "true", "true", *QUICK, "--out", self.path("b") + "/", check=0)
        self.assertTrue(os.path.isfile(self.path("b", "result.json")), cp.stderr)

    def test_trailing_dot_is_the_directory(self):
        # "--out DIR/." made DIR, then could not make DIR/. and left DIR empty.
        for tail in ("/.", "/./", "/./."):
            with self.subTest(tail=tail):
                out = self.path("d" + str(len(tail)))
                cp = self.abev("bench", "true", "true", *QUICK, "--out", out + tail, check=0)
                self.assertTrue(os.path.isfile(os.path.join(out, "result.json")), cp.stderr)
                self.assertEqual(self.abev("verify", out).returncode, 7)

    def test_trailing_dotdot_is_refused_leaving_nothing(self):
        # "--out NEW/.." made NEW, then found its parent to exist, and left NEW behind.
        before = sorted(os.listdir(self.tmp))
        for out in (self.path("new", ".."), self.path("new", "..") + "/"):
            with self.subTest(out=out):
                cp = self.abev("bench", "true", "true", *QUICK, "--out", out, check=2)
                self.assertIn("'--out' ends in '..'", cp.stderr)
                self.assertEqual(sorted(os.listdir(self.tmp)), before)

    def test_bundle_equal_to_out_is_refused_before_running(self):
        # Found only when packing, after every invocation had run.
        for bundle in ("b.tar.gz", "./b.tar.gz", "b.tar.gz/"):
            with self.subTest(bundle):
                cp = subprocess.run([ABEV, "bench", "true", "true", *QUICK, "--out",
                                     "b.tar.gz", "--bundle", bundle], cwd=self.tmp,
                                    capture_output=True, text=True, stdin=subprocess.DEVNULL)
                self.assertEqual(cp.returncode, 2, cp.stderr)
                self.assertIn("--bundle names the --out directory itself", cp.stderr)
                self.assertNotIn("decision:", cp.stdout)
                self.assertFalse(os.path.exists(self.path("b.tar.gz")))

    def test_default_out_of_benches_started_together(self):
        # The default name has one-second resolution: two benches in the same
        # second took the same one, and the second was refused. (--wait: they
        # take turns, rather than discard each other's runs as overlapping.)
        work = self.path("work")
        os.mkdir(work)
        procs = [subprocess.Popen([ABEV, "bench", "true", "true", *QUICK, "--wait"], cwd=work,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                  stdin=subprocess.DEVNULL) for _ in range(3)]
        outs = [p.communicate(timeout=300) for p in procs]
        for p, (out, err) in zip(procs, outs):
            self.assertEqual(p.returncode, 0, err)
        made = os.listdir(os.path.join(work, "abev-evidence"))
        self.assertEqual(len(made), 3, made)
        for d in made:
            self.assertTrue(os.path.isfile(os.path.join(work, "abev-evidence", d,
                                                        "SHA256")), d)

    def test_out_of_descriptors_is_a_runtime_error(self):
        # EMFILE (ulimit -n 12) exited 2, as if the command line were wrong.
        def few_fds():
            resource.setrlimit(resource.RLIMIT_NOFILE, (12, 12))
        cp = subprocess.run([ABEV, "bench", "true", "true", *QUICK, "--out", self.path("b")],
                            capture_output=True, text=True, stdin=subprocess.DEVNULL,
                            preexec_fn=few_fds)
        self.assertEqual(cp.returncode, 3, cp.stderr)
        self.assertIn("Too many open files", cp.stderr)
