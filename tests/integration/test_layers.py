"""make check-layers (mk/check-layers.py) holds abev's include lines to the
folder graph of mk/layers. These tests run it on the real tree, then on a
copy of it with one offence planted at a time, and check that each is
refused with the file and line named."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

SRC = os.environ["ABEV_SRC"]


def check(root):
    p = subprocess.run([sys.executable, os.path.join(SRC, "mk", "check-layers.py"), root],
                       capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout + p.stderr


class Layers(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="abev-layers.")
        shutil.copytree(os.path.join(SRC, "orchestrator"), os.path.join(self.tmp, "orchestrator"))
        shutil.copytree(os.path.join(SRC, "guards"), os.path.join(self.tmp, "guards"))
        os.mkdir(os.path.join(self.tmp, "mk"))
        shutil.copy(os.path.join(SRC, "mk", "layers"), os.path.join(self.tmp, "mk", "layers"))
        with open(os.path.join(self.tmp, "mk", "layers")) as f:
            self.order = [l.split(":")[0].strip() for l in f if l.strip() and not l.startswith("#")]

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def plant(self, rel, line, after="#include"):
        """Adds line before the first line of rel that starts with after; returns its line number."""
        path = os.path.join(self.tmp, rel)
        with open(path) as f:
            lines = f.read().split("\n")
        at = next(i for i, l in enumerate(lines) if l.startswith(after))
        lines.insert(at, line)
        with open(path, "w") as f:
            f.write("\n".join(lines))
        return at + 1

    def test_the_tree_obeys_its_order_and_has_no_cycle(self):
        rc, out = check(SRC)
        self.assertEqual(rc, 0, out)
        self.assertIn("no upward or undeclared include, no cycle", out)
        # One line per declared folder, bottom first, each naming only folders before it.
        rows = [l.split() for l in out.splitlines() if l and l.split()[0] in self.order]
        self.assertEqual([r[0] for r in rows], self.order)
        for r in rows:
            for below in r[1:]:
                if below != "-":
                    self.assertLess(self.order.index(below), self.order.index(r[0]), r)

    def test_the_copy_passes_before_anything_is_planted(self):
        rc, out = check(self.tmp)
        self.assertEqual(rc, 0, out)

    def test_an_upward_include_is_refused_with_file_and_line(self):
        line = self.plant("orchestrator/util/dirat.c", '#include "cli/cli.h"')
        rc, out = check(self.tmp)
        self.assertEqual(rc, 1, out)
        self.assertIn('orchestrator/util/dirat.c:%d: includes "cli/cli.h"' % line, out)
        self.assertIn("orchestrator/cli comes after orchestrator/util", out)
        # util -> cli and cli -> util: the folder graph now has a cycle, and says so.
        self.assertIn("folder include cycle:", out)

    def test_a_sideways_include_between_neighbours_is_refused(self):
        # guards/ sits below plan/: a guard that reaches into the plan looks up.
        line = self.plant("guards/load.c", '#include "plan/plan.h"')
        rc, out = check(self.tmp)
        self.assertEqual(rc, 1, out)
        self.assertIn('guards/load.c:%d: includes "plan/plan.h"' % line, out)

    def test_an_include_along_no_declared_edge_is_refused(self):
        # measure/ sits below run/ but does not declare decide/: looking
        # down is not enough, the edge must be one mk/layers names.
        line = self.plant("orchestrator/measure/peers.c", '#include "decide/stats.h"')
        rc, out = check(self.tmp)
        self.assertEqual(rc, 1, out)
        self.assertIn('orchestrator/measure/peers.c:%d: includes "decide/stats.h": mk/layers does '
                      'not let orchestrator/measure use orchestrator/decide' % line, out)
        # Declared, the same line passes.
        self.set_line("orchestrator/measure", "util record decide")
        rc, out = check(self.tmp)
        self.assertEqual(rc, 0, out)

    def test_a_declared_edge_no_include_uses_is_refused(self):
        self.set_line("orchestrator/measure", "util record results")
        rc, out = check(self.tmp)
        self.assertEqual(rc, 1, out)
        self.assertIn("mk/layers: orchestrator/measure declares orchestrator/results, but no "
                      "include line of orchestrator/measure uses it", out)

    def test_a_malformed_graph_is_refused_with_its_line(self):
        # A folder may use only folders declared above it: that keeps the
        # graph acyclic by construction.
        self.set_line("orchestrator/util", "util record")
        rc, out = check(self.tmp)
        self.assertEqual(rc, 1, out)
        self.assertRegex(out, r"mk/layers:\d+: orchestrator/util uses util, which no earlier line declares")

    def set_line(self, folder, uses):
        """Rewrites folder's line of the copy's mk/layers to use exactly uses."""
        path = os.path.join(self.tmp, "mk", "layers")
        with open(path) as f:
            lines = f.read().split("\n")
        lines = [folder + ": " + uses if l.split(":")[0].strip() == folder else l for l in lines]
        with open(path, "w") as f:
            f.write("\n".join(lines))

    def test_an_include_without_its_folder_is_refused(self):
        line = self.plant("orchestrator/report/report.c", '#include "proc.h"')
        rc, out = check(self.tmp)
        self.assertEqual(rc, 1, out)
        self.assertIn('orchestrator/report/report.c:%d: "proc.h" names no folder: write "run/proc.h"' % line, out)

    def test_a_header_that_does_not_exist_is_refused(self):
        line = self.plant("orchestrator/plan/plan.c", '#include "util/nonesuch.h"')
        rc, out = check(self.tmp)
        self.assertEqual(rc, 1, out)
        self.assertIn('orchestrator/plan/plan.c:%d: "util/nonesuch.h": no such header' % line, out)

    def test_an_angle_include_of_a_project_header_is_refused_and_placed(self):
        # -I puts abev's folders on the <> search path too: a planted
        # <pipeline/runner.h> in util/ compiled and passed before.
        line = self.plant("orchestrator/util/dirat.c", "#include <pipeline/runner.h>")
        rc, out = check(self.tmp)
        self.assertEqual(rc, 1, out)
        self.assertIn('orchestrator/util/dirat.c:%d: <pipeline/runner.h> is abev\'s own header: '
                      'write "pipeline/runner.h"' % line, out)
        self.assertIn('orchestrator/util/dirat.c:%d: includes "pipeline/runner.h": '
                      'orchestrator/pipeline comes after orchestrator/util' % line, out)
        # A system header stays a system header.
        with open(os.path.join(self.tmp, "orchestrator/util/dirat.c")) as f:
            self.assertIn("#include <fcntl.h>", f.read())

    def test_a_feature_macro_of_its_own_is_refused(self):
        line = self.plant("orchestrator/run/proc.c", "#define _GNU_SOURCE")
        rc, out = check(self.tmp)
        self.assertEqual(rc, 1, out)
        self.assertIn("orchestrator/run/proc.c:%d: a feature-test macro of its own" % line, out)

    def test_a_folder_the_order_does_not_place_is_refused(self):
        os.mkdir(os.path.join(self.tmp, "orchestrator", "extra"))
        with open(os.path.join(self.tmp, "orchestrator", "extra", "x.c"), "w") as f:
            f.write('#include "util/strbuf.h"\n')
        rc, out = check(self.tmp)
        self.assertEqual(rc, 1, out)
        self.assertIn("orchestrator/extra/: a source folder mk/layers does not place", out)


class Symbols(unittest.TestCase):
    """mk/check-symbols.py: no object references a symbol of a folder above its own."""

    def test_the_library_passes(self):
        here = os.path.dirname(os.path.abspath(os.environ["ABEV"]))
        libs = [os.path.join(here, "libabev.a"), os.path.join(here, "build", "libabev.a")]
        lib = next((l for l in libs if os.path.exists(l)), None)
        if not lib:
            self.skipTest("no libabev.a beside $ABEV")
        p = subprocess.run([sys.executable, os.path.join(SRC, "mk", "check-symbols.py"), lib,
                            SRC], capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("none upward", p.stdout)

    def test_an_upward_call_without_an_include_is_refused(self):
        cc = shutil.which("cc")
        if not cc or not shutil.which("nm") or not shutil.which("ar"):
            self.skipTest("needs cc, nm and ar")
        with tempfile.TemporaryDirectory(prefix="abev-symbols.") as tmp:
            for d in ("mk", "low", "high"):
                os.mkdir(os.path.join(tmp, d))
            with open(os.path.join(tmp, "mk", "layers"), "w") as f:
                f.write("low\nside\nhigh: low\n")
            os.mkdir(os.path.join(tmp, "side"))
            sources = {
                "low/base.c": "int base_value(void) { return 1; }\n",
                # A prototype of its own: no include line to catch.
                "low/sneak.c": "int high_thing(void);\nint sneak(void) { return high_thing(); }\n",
                "high/top.c": "int base_value(void);\n"
                              "int side_thing(void);\n"
                              "int high_thing(void) { return base_value() + side_thing(); }\n",
                # Below high, but high's line does not declare side.
                "side/aside.c": "int side_thing(void) { return 2; }\n",
            }
            objs = []
            for rel, text in sources.items():
                with open(os.path.join(tmp, rel), "w") as f:
                    f.write(text)
                obj = os.path.join(tmp, os.path.basename(rel)[:-2] + ".o")
                subprocess.run([cc, "-O0", "-c", "-o", obj, os.path.join(tmp, rel)], check=True)
                objs.append(obj)
            lib = os.path.join(tmp, "lib.a")
            subprocess.run(["ar", "rcs", lib] + objs, check=True)
            p = subprocess.run([sys.executable, os.path.join(SRC, "mk", "check-symbols.py"), lib,
                                tmp], capture_output=True, text=True, timeout=120)
            self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
            self.assertIn("low/sneak.c uses high_thing, defined in high/top.c above it", p.stdout)
            self.assertIn("high/top.c uses side_thing, defined in side/aside.c which mk/layers "
                          "does not let high use", p.stdout)
            self.assertNotIn("base_value", p.stdout)   # high -> low is declared


class Names(unittest.TestCase):
    """mk/check-names.py: no static function named like another file's public one."""

    def test_the_library_passes(self):
        here = os.path.dirname(os.path.abspath(os.environ["ABEV"]))
        # build/asan/abev beside build/asan/libabev.a; ./abev beside build/libabev.a
        libs = [os.path.join(here, "libabev.a"), os.path.join(here, "build", "libabev.a")]
        lib = next((l for l in libs if os.path.exists(l)), None)
        if not lib:
            self.skipTest("no libabev.a beside $ABEV")
        p = subprocess.run([sys.executable, os.path.join(SRC, "mk", "check-names.py"), lib, SRC],
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)

    def test_a_static_twin_and_a_file_named_twice_are_refused(self):
        cc = shutil.which("cc")
        if not cc or not shutil.which("nm") or not shutil.which("ar"):
            self.skipTest("needs cc, nm and ar")
        with tempfile.TemporaryDirectory(prefix="abev-names.") as tmp:
            for d in ("mk", "a", "b"):
                os.mkdir(os.path.join(tmp, d))
            with open(os.path.join(tmp, "mk", "layers"), "w") as f:
                f.write("a\nb: a\n")
            with open(os.path.join(tmp, "a", "one.c"), "w") as f:
                f.write("int shared_name(void) { return 1; }\n")
            with open(os.path.join(tmp, "b", "two.c"), "w") as f:
                f.write("static int shared_name(void) { return 2; }\n"
                        "int two(void) { return shared_name(); }\n")
            with open(os.path.join(tmp, "b", "one.c"), "w") as f:
                f.write("int one_more(void) { return 3; }\n")
            objs = []
            for src in ("a/one.c", "b/two.c"):
                obj = os.path.join(tmp, os.path.basename(src)[:-2] + ".o")
                subprocess.run([cc, "-O0", "-c", "-o", obj, os.path.join(tmp, src)], check=True)
                objs.append(obj)
            subprocess.run(["ar", "rcs", os.path.join(tmp, "lib.a")] + objs, check=True)
            p = subprocess.run([sys.executable, os.path.join(SRC, "mk", "check-names.py"),
                                os.path.join(tmp, "lib.a"), tmp],
                               capture_output=True, text=True, timeout=120)
            self.assertEqual(p.returncode, 1, p.stdout)
            self.assertIn("two.o: static shared_name is named like the function one.o exports",
                          p.stdout)
            self.assertIn("one.c: a file of this name in a and b", p.stdout)

    def test_a_name_without_its_files_prefix_is_refused(self):
        cc = shutil.which("cc")
        if not cc or not shutil.which("nm") or not shutil.which("ar"):
            self.skipTest("needs cc, nm and ar")
        with tempfile.TemporaryDirectory(prefix="abev-names.") as tmp:
            for d in ("mk", "util", "guards"):
                os.mkdir(os.path.join(tmp, d))
            with open(os.path.join(tmp, "mk", "layers"), "w") as f:
                f.write("util\nguards: util\n")
            with open(os.path.join(tmp, "mk", "name-prefixes"), "w") as f:
                f.write("# idioms\nutil/alloc.c: x* die_oom\n")
            sources = {
                # its file's name, an allowed idiom, the folder's name without its s
                "util/alloc.c": "int alloc_size(void) { return 1; }\nint xmalloc(void) { return 2; }\n",
                "guards/load.c": "int guard_load(void) { return 3; }\nint load_ok(void) { return 4; }\n"
                                 "int stray(void) { return 5; }\n",
            }
            objs = []
            for rel, text in sources.items():
                with open(os.path.join(tmp, rel), "w") as f:
                    f.write(text)
                obj = os.path.join(tmp, os.path.basename(rel)[:-2] + ".o")
                subprocess.run([cc, "-O0", "-c", "-o", obj, os.path.join(tmp, rel)], check=True)
                objs.append(obj)
            subprocess.run(["ar", "rcs", os.path.join(tmp, "lib.a")] + objs, check=True)
            p = subprocess.run([sys.executable, os.path.join(SRC, "mk", "check-names.py"),
                                os.path.join(tmp, "lib.a"), tmp],
                               capture_output=True, text=True, timeout=120)
            self.assertEqual(p.returncode, 1, p.stdout)
            self.assertIn("guards/load.c exports stray: begin it with load_", p.stdout)
            # An allowance nothing needs is refused too, so the list stays the code's.
            self.assertIn("mk/name-prefixes: util/alloc.c: die_oom matches no exported name", p.stdout)
            for ok in ("alloc_size", "xmalloc", "guard_load", "load_ok"):
                self.assertNotIn(" " + ok + ":", p.stdout)


if __name__ == "__main__":
    unittest.main()
