"""The names a TRX's tests get when abev reads the file as a file: the reader
first finds the test definitions (each test's class) by a byte scan and
parses only them, then reads the results (results_scan.c). Whatever the scan
finds, the names must be those the definitions give. Each file here is read
twice: as a file, and, with its TestDefinitions moved before its Results,
through a pipe, which is read once with no scan at all and meets the
definitions first; `abev results --list` must print the same lines both ways.
The files: every TRX of the corpus (../shared/corpus, or ABEV_CORPUS), and
ones written to trip a scan: a comment, a CDATA section and a processing
instruction holding a TestDefinitions and an end of Results, '>' and "/>" in
attribute values, definitions deeper than the root's child, prefixed names,
an element named Results inside the results, and 4 MB of results, larger
than the scan's window.
"""
import os
import subprocess
import sys
import xml.parsers.expat

from common import ABEV, AbevTestCase

GEN = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                   "helpers", "gen_results.py")
CORPUS = os.environ.get("ABEV_CORPUS") or os.path.join(
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
    "..", "shared", "corpus")
NS = "http://microsoft.com/schemas/VisualStudio/TeamTest/2010"


def root_children(data):
    """Byte ranges [start, end) of the root's children named Results and
    TestDefinitions, the first of each, from expat's own offsets."""
    p = xml.parsers.expat.ParserCreate(namespace_separator=" ")
    depth, found, open_at = [0], {}, {}

    def local(name):
        return name.rsplit(" ", 1)[-1]

    def start(name, attrs):
        depth[0] += 1
        if depth[0] == 2 and local(name) not in found and local(name) not in open_at:
            open_at[local(name)] = p.CurrentByteIndex

    def end(name):
        if depth[0] == 2 and local(name) in open_at and local(name) not in found:
            at = p.CurrentByteIndex
            # An empty element's end comes at its start: its end is its '>'.
            close = data.index(b">", at) + 1
            found[local(name)] = (open_at[local(name)], close)
        depth[0] -= 1

    p.StartElementHandler, p.EndElementHandler = start, end
    p.Parse(data, True)
    return found


def definitions_first(data):
    """data with its TestDefinitions moved to just before its Results."""
    found = root_children(data)
    if "TestDefinitions" not in found or "Results" not in found:
        return data
    (rs, _), (ds, de) = found["Results"], found["TestDefinitions"]
    if ds < rs:
        return data
    return data[:rs] + data[ds:de] + data[rs:ds] + data[de:]


class ResultsScan(AbevTestCase):
    def list_file(self, path):
        cp = subprocess.run([ABEV, "results", path, "--list"], capture_output=True)
        self.assertEqual(cp.returncode, 0, cp.stderr)
        return cp.stdout

    def list_pipe(self, data):
        """--list of data read from a pipe (/dev/stdin): once, with no scan."""
        cp = subprocess.run([ABEV, "results", "/dev/stdin", "--list"], input=data,
                            capture_output=True, timeout=300)
        self.assertEqual(cp.returncode, 0, cp.stderr)
        return cp.stdout

    def check(self, name, data):
        path = self.path(name)
        with open(path, "wb") as f:
            f.write(data)
        want = self.list_pipe(definitions_first(data))
        got = self.list_file(path)
        self.assertEqual(got.decode(), want.decode(), name)
        return got.decode()

    def test_corpus(self):
        d = os.path.join(CORPUS, "trx")
        if not os.path.isdir(d):
            self.skipTest(f"corpus not found at {d} (set ABEV_CORPUS)")
        names = sorted(n for n in os.listdir(d) if n.endswith(".trx"))
        self.assertGreater(len(names), 0)
        classed = 0
        for n in names:
            with self.subTest(file=n):
                with open(os.path.join(d, n), "rb") as f:
                    data = f.read()
                out = self.check(n, data)
                classed += bool(out)
        self.assertGreater(classed, 5)

    def test_what_is_no_tag(self):
        data = (
            '<?xml version="1.0" encoding="utf-8"?>\n'
            '<!-- <TestDefinitions><UnitTest id="a"><TestMethod className="Comment"/>'
            '</UnitTest></TestDefinitions> -->\n'
            f'<TestRun id="r" name="a &gt; b" xmlns="{NS}" note=\'x"/>\'>'
            '<Results>'
            '<UnitTestResult testId="a" testName="One" outcome="Passed" computerName="a > b">'
            '<Output><StdOut><![CDATA[</Results><TestDefinitions><UnitTest id="a">'
            '<TestMethod className="Cdata"/></UnitTest></TestDefinitions>]]></StdOut>'
            '</Output></UnitTestResult>'
            '<?pi </Results><TestDefinitions> ?>'
            '<UnitTestResult testId="b" testName="Two" outcome="Failed" note=\'/>\'/>'
            '<!-- </Results> -->'
            '</Results>'
            '<TestSettings><TestDefinitions><UnitTest id="a"><TestMethod className="Deep"/>'
            '</UnitTest></TestDefinitions></TestSettings>'
            '<TestDefinitions>'
            '<UnitTest id="a" name="One"><TestMethod className="Real.A" name="One"/></UnitTest>'
            '<UnitTest id="b" name="Two"><TestMethod className="Real.B" name="Two"/></UnitTest>'
            '</TestDefinitions>'
            '<ResultSummary outcome="Failed"><Counters total="2" executed="2" passed="1" '
            'failed="1"/></ResultSummary></TestRun>\n').encode()
        out = self.check("no-tag.trx", data)
        self.assertIn("Real.A.One\tpassed", out)
        self.assertIn("Real.B.Two\tfailed", out)

    def test_prefixed_and_results_inside_results(self):
        data = (
            f'<t:TestRun xmlns:t="{NS}"><t:Results>'
            '<t:UnitTestResult testId="a" testName="One" outcome="Passed">'
            '<t:Output><t:Results/><t:Results>x</t:Results></t:Output></t:UnitTestResult>'
            '</t:Results><t:TestDefinitions><t:UnitTest id="a" name="One">'
            '<t:TestMethod className="Pre.Fixed" name="One"/></t:UnitTest></t:TestDefinitions>'
            '</t:TestRun>').encode()
        out = self.check("prefixed.trx", data)
        self.assertIn("Pre.Fixed.One\tpassed", out)

    def test_larger_than_the_window(self):
        path = self.path("big.trx")
        subprocess.run([sys.executable, GEN, "trx", path, "--results", "9000",
                        "--size", str(4 << 20), "--data-driven", "50"], check=True,
                       capture_output=True)
        with open(path, "rb") as f:
            data = f.read()
        self.assertGreater(len(data), 3 << 20)
        self.check("big2.trx", data)
