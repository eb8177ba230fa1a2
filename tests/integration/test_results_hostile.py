"""`abev results` on hostile and broken input: each file is refused with exit
2 and one line "abev: error: <file>:<line>: <reason>", cheaply (2 s of CPU
time, from wait4: a busy machine stretches the wall time, not the work; the
wall time is only printed, and bench/clock-accuracy.sh reports it), in
bounded memory (abev's own peak RSS, VmHWM, polled from
/proc/<pid>/status while it runs, and, when /usr/bin/time is installed, the
ru_maxrss that tiny launcher gets from wait4, which also covers runs too short
to poll; wait4's ru_maxrss from this Python parent would include Python's own
RSS, which the kernel carries across exec), and
without reading anything the file names outside itself (the content of
/etc/hostname and of a secret file must appear nowhere in the output).
A 100 MB TRX of 200 000 results must be read in bounded memory with exact
counts. Files come from tests/helpers/gen_results.py; the 2 GB inputs are
never written: one is streamed through a FIFO, the other is a sparse file.
"""
import json
import os
import re
import secrets
import signal
import subprocess
import sys
import time

from common import ABEV, SANITIZED, AbevTestCase

GEN = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                   "helpers", "gen_results.py")
PY = sys.executable
COUNTS = ("total", "executed", "passed", "failed", "errors", "skipped", "other")
MIB = 1 << 20
# Refusals cost next to nothing: 2 s of CPU is far above anything legitimate
# (5x under ASan).
REFUSE_CPU_SECONDS = 10.0 if SANITIZED else 2.0
# How long abev may take to start and open a FIFO, or to finish at all, before
# the test calls it hung: generous, a busy machine only makes it slower.
HANG_SECONDS = 30.0
# abev's peak RSS while refusing or while streaming a 100 MB file.
MAX_RSS = 30 * MIB


def vm_hwm(pid, name):
    """VmHWM of pid in bytes once it runs `name` (before exec, a vfork'd child
    shows this Python's memory), else None."""
    try:
        with open(f"/proc/{pid}/status") as f:
            text = f.read()
    except OSError:
        return None
    m = re.search(r"^Name:\s*(.*)$", text, re.M)
    if not m or m.group(1) != name[:15]:
        return None
    m = re.search(r"^VmHWM:\s*(\d+) kB", text, re.M)
    return int(m.group(1)) * 1024 if m else None


# A tiny launcher reporting its child's ru_maxrss (wait4), when installed: it
# also catches the peak of a run too short to be polled.
TIME = "/usr/bin/time" if os.access("/usr/bin/time", os.X_OK) else None


def child_named(ppid, name):
    try:
        with open(f"/proc/{ppid}/task/{ppid}/children") as f:
            pids = f.read().split()
    except OSError:
        return None
    for pid in pids:
        try:
            with open(f"/proc/{pid}/comm") as f:
                if f.read().strip() == name[:15]:
                    return int(pid)
        except OSError:
            pass
    return None


class Running:
    """abev while it runs: poll() as subprocess's, pid() abev's own (once known).
    It reaps with wait4(), so that rusage holds the CPU time of what was
    started (abev, or /usr/bin/time and abev)."""

    def __init__(self, proc, launched):
        self.proc, self.launched, self._pid = proc, launched, None
        self.rusage = None

    def poll(self, block=False):
        if self.proc.returncode is None:
            pid, status, ru = os.wait4(self.proc.pid, 0 if block else os.WNOHANG)
            if pid == self.proc.pid:
                self.proc.returncode = os.waitstatus_to_exitcode(status)
                self.rusage = ru
        return self.proc.returncode

    def wait(self):
        return self.poll(block=True)

    def pid(self):
        if self._pid is None:
            self._pid = (child_named(self.proc.pid, os.path.basename(ABEV)) if self.launched
                         else self.proc.pid)
        return self._pid


class Measured:
    __slots__ = ("returncode", "stdout", "stderr", "wall", "cpu", "peak", "samples")


class HostileCase(AbevTestCase):
    def gen(self, *args):
        cp = subprocess.run([PY, GEN, *args], capture_output=True, text=True, timeout=120)
        self.assertEqual(cp.returncode, 0, cp.stderr)
        return json.loads(cp.stdout) if cp.stdout.strip() else None

    def measure(self, *args, timeout=HANG_SECONDS, after_start=None):
        """Runs abev with args, polling its VmHWM (and, with /usr/bin/time, its
        ru_maxrss); returns a Measured. after_start(Running) runs once right
        after abev is started."""
        out, err, rss = self.path("abev.out"), self.path("abev.err"), self.path("abev.rss")
        argv = [ABEV, *args]
        if TIME:
            argv = [TIME, "-f", "%M", "-o", rss, *argv]
        with open(out, "w") as fo, open(err, "w") as fe:
            t0 = time.monotonic()
            p = subprocess.Popen(argv, stdout=fo, stderr=fe, stdin=subprocess.DEVNULL,
                                 start_new_session=True)
        r = Running(p, bool(TIME))
        name = os.path.basename(ABEV)
        peak, samples = 0, 0
        try:
            if after_start:
                after_start(r)
            while True:
                pid = r.pid()
                h = vm_hwm(pid, name) if pid else None
                if h is not None:
                    peak, samples = max(peak, h), samples + 1
                if r.poll() is not None:
                    break
                if time.monotonic() - t0 > timeout:
                    os.killpg(p.pid, signal.SIGKILL)
                    r.wait()
                    self.fail(f"abev {' '.join(args)} still running after {timeout} s")
                time.sleep(0.002)
        finally:
            if r.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
                r.wait()
        m = Measured()
        m.wall = time.monotonic() - t0
        m.cpu = r.rusage.ru_utime + r.rusage.ru_stime
        m.returncode = p.returncode
        if TIME:
            with open(rss) as f:
                last = f.read().strip().splitlines()[-1:]
            if last and last[0].isdigit():    # KiB, from wait4's ru_maxrss
                peak, samples = max(peak, int(last[0]) * 1024), samples + 1
            os.unlink(rss)
        m.peak, m.samples = peak, samples
        with open(out, encoding="utf-8", errors="replace") as f:
            m.stdout = f.read()
        with open(err, encoding="utf-8", errors="replace") as f:
            m.stderr = f.read()
        os.unlink(out)
        os.unlink(err)
        return m

    def assert_bounded(self, m, what, limit=MAX_RSS):
        if SANITIZED:
            return   # ASan's shadow memory inflates RSS; see test_large_trx
        if m.samples:
            self.assertLess(m.peak, limit, f"{what}: abev's peak RSS {m.peak / MIB:.1f} MiB")

    def assert_refused(self, path, m, reason_re=None, whole_file=False):
        """Exit 2 and exactly one line "abev: error: <path>:<line>: <reason>".
        A refusal of the file as a whole (its size, no content at all) has no
        line to name: whole_file=True expects "abev: error: <path>: <reason>"."""
        self.assertEqual(m.returncode, 2, f"{path} not refused:\nstdout:\n{m.stdout}\nstderr:\n{m.stderr}")
        self.assertTrue(m.stderr.endswith("\n") and m.stderr.count("\n") == 1,
                        f"not one line on stderr:\n{m.stderr!r}")
        if whole_file:
            mm = re.match(rf"abev: error: {re.escape(path)}: (\S.*)\n\Z", m.stderr)
            self.assertIsNotNone(mm, f"not 'abev: error: {path}: <reason>':\n{m.stderr!r}")
            line, reason = None, mm.group(1)
        else:
            mm = re.match(rf"abev: error: {re.escape(path)}:(\d+): (\S.*)\n\Z", m.stderr)
            self.assertIsNotNone(mm, f"not 'abev: error: {path}:<line>: <reason>':\n{m.stderr!r}")
            line, reason = int(mm.group(1)), mm.group(2)
        if reason_re:
            self.assertRegex(reason, re.compile(reason_re, re.I))
        self.assertLess(m.cpu, REFUSE_CPU_SECONDS,
                        f"{path}: refusing cost {m.cpu:.2f} s of CPU ({m.wall:.2f} s of wall time)")
        return line, reason

    def assert_nothing_leaked(self, m, path, secret):
        out = (m.stdout + m.stderr).replace(path, "<file>")
        self.assertNotIn(secret, out, "the secret file's content was read")
        try:
            with open("/etc/hostname") as f:
                host = f.read().strip()
        except OSError:
            host = ""
        if host:
            self.assertNotRegex(out, rf"(?<![\w.-]){re.escape(host)}(?![\w.-])",
                                "the content of /etc/hostname appears in abev's output")


class Hostile(HostileCase):
    def setUp(self):
        super().setUp()
        self.secret = "abev-secret-" + secrets.token_hex(8)
        self.secret_file = self.path("secret.txt")
        with open(self.secret_file, "w") as f:
            f.write(self.secret + "\n")

    def refuse(self, kind, *gen_args, reason_re=None, name=None):
        path = self.path(name or f"{kind}.xml")
        self.gen("hostile", kind, path, *gen_args)
        m = self.measure("results", path)
        line, reason = self.assert_refused(path, m, reason_re)
        self.assert_bounded(m, kind)
        return path, m, line

    def test_external_entity(self):
        for root in ("trx", "junit"):
            for target in ("/etc/hostname", self.secret_file):
                with self.subTest(root=root, target=target):
                    path, m, line = self.refuse("xxe-file", "--root", root, "--target", target,
                                                reason_re=r"doctype|dtd|entit",
                                                name=f"xxe-{root}-{os.path.basename(target)}.xml")
                    self.assertTrue(1 <= line <= 5, line)
                    self.assert_nothing_leaked(m, path, self.secret)
                    # The --json form refuses the same way and leaks nothing either.
                    j = self.abev("results", path, "--json", timeout=30)
                    self.assertEqual(j.returncode, 2)
                    self.assertNotIn(self.secret, j.stdout + j.stderr)

    def test_external_dtd(self):
        for root in ("trx", "junit"):
            with self.subTest(root=root):
                path, m, _ = self.refuse("external-dtd", "--root", root, "--target", self.secret_file,
                                         reason_re=r"doctype|dtd|entit", name=f"dtd-{root}.xml")
                self.assert_nothing_leaked(m, path, self.secret)

    def test_billion_laughs(self):
        for root in ("trx", "junit"):
            with self.subTest(root=root):
                self.refuse("billion-laughs", "--root", root, reason_re=r"doctype|dtd|entit",
                            name=f"lol-{root}.xml")

    def test_deep_nesting_in_a_file(self):
        # 100 000 nested elements under a TestRun root (300 KB).
        _, _, line = self.refuse("nested", "--depth", "100000", reason_re=r"depth|nest|deep")
        self.assertEqual(line, 1)

    def test_sparse_2gb_file_refused_by_size(self):
        path = self.path("sparse.xml")
        self.gen("hostile", "sparse", path, "--size", "2G", "--depth", "1000")
        st = os.stat(path)
        self.assertEqual(st.st_size, 2 << 30)
        self.assertLess(st.st_blocks * 512, 16 * MIB, "the test file should be sparse")
        m = self.measure("results", path)
        self.assert_refused(path, m, r"size|large|big|bytes|[GM]i?B|limit", whole_file=True)
        self.assert_bounded(m, "sparse 2 GiB file")

    def fifo_nesting(self, writer_first):
        """Up to 2 GiB of nested elements through a FIFO, written endlessly by
        gen_results.py stream: refused without reading it all, and the writer
        stops (EPIPE/SIGPIPE) when abev closes the pipe."""
        fifo = self.path("stream.xml")
        os.mkfifo(fifo)
        writer, holder = [], []

        def spawn(fd):
            try:
                writer.append(subprocess.Popen([PY, GEN, "stream", "--max-bytes", "2G"],
                                               stdout=fd, stdin=subprocess.DEVNULL,
                                               stderr=subprocess.PIPE))
            finally:
                os.close(fd)

        if writer_first:
            # A writer is connected before abev opens the FIFO (as in a shell
            # pipeline): a reader held here lets the writer's open complete,
            # and is closed once abev has the FIFO open.
            holder.append(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))
            spawn(os.open(fifo, os.O_WRONLY))

        def after_start(p):
            deadline = time.monotonic() + HANG_SECONDS
            if writer_first:
                while p.poll() is None and time.monotonic() < deadline:
                    try:
                        pid = p.pid()
                        if pid and any(os.readlink(f"/proc/{pid}/fd/{n}") == fifo
                                       for n in os.listdir(f"/proc/{pid}/fd")):
                            break
                    except OSError:
                        pass
                    time.sleep(0.001)
                os.close(holder.pop())
                return
            # abev first: the writer connects once abev has opened the FIFO.
            while True:
                try:
                    fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
                    break
                except OSError:     # ENXIO: abev has not opened it for reading yet
                    if p.poll() is not None or time.monotonic() > deadline:
                        return
                    time.sleep(0.001)
            os.set_blocking(fd, True)
            spawn(fd)

        try:
            m = self.measure("results", fifo, after_start=after_start)
            self.assertTrue(writer, f"abev never opened the FIFO for reading:\n{m.stderr}")
            self.assert_refused(fifo, m, r"depth|nest|deep")
            self.assert_bounded(m, "FIFO of nested elements")
            try:
                rc = writer[0].wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.fail("the FIFO writer is still writing after abev exited")
            # Stopped by the closed pipe (EPIPE handled, or SIGPIPE), not by running out.
            self.assertIn(rc, (0, -signal.SIGPIPE), writer[0].stderr.read())
        finally:
            for fd in holder:
                os.close(fd)
            for w in writer:
                if w.poll() is None:
                    w.kill()
                    w.wait()
                w.stderr.close()

    def test_2gb_of_nesting_through_a_fifo_writer_first(self):
        self.fifo_nesting(writer_first=True)

    def test_2gb_of_nesting_through_a_fifo_abev_first(self):
        # abev opens the FIFO before any writer has: it must wait for one,
        # not take the missing writer for an empty file.
        self.fifo_nesting(writer_first=False)

    def test_non_xml(self):
        path, m, _ = self.refuse("non-xml", name="binary.xml")
        self.assertNotIn("\x00", m.stderr)

    def test_empty_file(self):
        path = self.path("empty.xml")
        open(path, "w").close()
        m = self.measure("results", path)
        self.assert_refused(path, m, r"empty", whole_file=True)

    def test_truncated_file(self):
        path = self.path("cut.trx")
        self.gen("trx", path, "--results", "50")
        with open(path, "rb+") as f:
            f.truncate(os.path.getsize(path) // 2)
        m = self.measure("results", path)
        self.assert_refused(path, m)

    def test_unknown_root(self):
        self.refuse("unknown-root", reason_re=r"root|html")

    def test_result_without_outcome_is_not_a_pass(self):
        path = self.path("no-outcome.trx")
        want = self.gen("hostile", "trx-no-outcome", path)
        cp = self.abev("results", path, "--json", check=0)
        f = json.loads(cp.stdout)["files"][0]
        self.assertEqual(f["format"], "trx")
        self.assertEqual({k: f[k] for k in COUNTS}, want,
                         "a result with no outcome (the default, Error) must not count as passed")
        self.assertEqual(f["passed"], 1)
        # Its Counters claim passed="2" executed="2": a disagreement to note.
        self.assertTrue(f["notes"], "no note although Counters say passed=2")
        self.assertIsNotNone(f["declared"])
        self.assertEqual(f["declared"]["passed"], 2)
        # Nor does it satisfy the guard as an executed test.
        self.abev("results", path, "--min-executed", "2", check=1)
        self.abev("guard", "min-executed", "--min", "2", path, check=1)


class LongMarkup(HostileCase):
    def test_1gb_single_attribute_is_refused_in_abevs_words(self):
        # <TestRun a="xxx...">, 1 GB long: 16 MiB of 'x' written, the rest a
        # sparse hole, then the closing quote. libxml2 alone says "internal
        # error: Huge input lookup" at 10 MB; abev stops at its own limit.
        path = self.path("one-attribute.trx")
        with open(path, "wb") as f:
            f.write(b'<TestRun a="')
            chunk = b"x" * MIB
            for _ in range(16):
                f.write(chunk)
            f.seek(10 ** 9 - 3)
            f.write(b'"/>')
        self.assertEqual(os.path.getsize(path), 10 ** 9)
        m = self.measure("results", path)
        line, reason = self.assert_refused(path, m)
        self.assertEqual(line, 1)
        self.assertEqual(reason, "element 'TestRun': an attribute value longer than 262144 bytes "
                                 "(abev's limit): not a test-result file abev can read")
        self.assertNotIn("Huge input lookup", m.stderr)
        self.assert_bounded(m, "1 GB attribute")

    def test_a_megabyte_of_attributes_costs_little(self):
        # 100,000 distinct attributes on the root (1.1 MB): libxml2 2.9
        # compares each with every other (seconds); abev refuses the tag by its
        # size before libxml2 parses it, within assert_refused's CPU budget.
        path = self.path("attributes.trx")
        with open(path, "w") as f:
            f.write("<TestRun " + " ".join(f'a{i}=""' for i in range(100000)) + "/>\n")
        m = self.measure("results", path)
        self.assert_refused(path, m, r"^element 'TestRun': a start tag longer than 262144 bytes")


class SameFile(HostileCase):
    def test_one_file_under_three_names_counts_once(self):
        # a.trx, ./a.trx and a symlink to it are one file (st_dev, st_ino).
        self.gen("trx", self.path("a.trx"), "--results", "7")
        os.symlink("a.trx", self.path("link.trx"))
        one = json.loads(self.abev("results", "--json", self.path("a.trx"), check=0).stdout)
        cp = subprocess.run([ABEV, "results", "--json", "a.trx", "./a.trx", "link.trx"],
                            capture_output=True, text=True, cwd=self.tmp, timeout=HANG_SECONDS,
                            stdin=subprocess.DEVNULL)
        self.assertEqual(cp.returncode, 0, cp.stderr)
        doc = json.loads(cp.stdout)
        self.assertEqual(len(doc["files"]), 1)
        self.assertEqual(doc["files"][0]["path"], "a.trx")
        self.assertEqual(doc["total"], one["total"])
        self.assertEqual(doc["total"]["total"], 7)
        self.assertIn("'./a.trx' is the same file as 'a.trx': counted once", cp.stderr)
        self.assertIn("'link.trx' is the same file as 'a.trx': counted once", cp.stderr)


class Refused(HostileCase):
    def test_the_table_says_what_it_leaves_out(self):
        # Nothing read: no table of zeros beside the error.
        cp = self.abev("results", self.path("missing.trx"), check=2)
        self.assertEqual(cp.stdout, "")
        self.assertIn("missing.trx: cannot open", cp.stderr)
        # One of two read: its row and a total that says it is partial.
        self.gen("trx", self.path("a.trx"), "--results", "3")
        cp = self.abev("results", self.path("a.trx"), self.path("missing.trx"), check=2)
        self.assertIn("note: 1 of 2 files refused (their errors are on stderr): the total "
                      "counts only the files read", cp.stdout)
        self.assertRegex(cp.stdout, r"(?m)^total +trx +3 ")


class LargeTrx(HostileCase):
    def test_large_trx_bounded_memory_exact_counts(self):
        path = self.path("big.trx")
        want = self.gen("trx", path, "--results", "200000", "--size", "100M", "--shape", "lean",
                        "--data-driven", "500")
        self.assertGreater(want["bytes"], 95 * 1000 * 1000)
        m = self.measure("results", path, "--json", timeout=120)
        os.unlink(path)
        self.assertEqual(m.returncode, 0, m.stderr)
        f = json.loads(m.stdout)["files"][0]
        self.assertEqual({k: f[k] for k in COUNTS}, {k: want[k] for k in COUNTS})
        self.assertEqual(f["format"], "trx")
        self.assertEqual(f["outcome"], "Failed")
        self.assertEqual(f["start"], "2026-12-02T10:00:00.0000000+00:00")
        self.assertGreater(m.samples, 0, "abev exited before its memory could be sampled")
        if SANITIZED:
            self.skipTest(f"counts exact; peak RSS not checked under ASan (measured "
                          f"{m.peak / MIB:.1f} MiB; ASan's shadow memory inflates RSS)")
        self.assertLess(m.peak, MAX_RSS,
                        f"abev's VmHWM {m.peak / MIB:.1f} MiB reading a 100 MB TRX "
                        f"({m.wall:.2f} s)")
