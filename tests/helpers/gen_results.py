#!/usr/bin/env python3
"""Writes test-result files for abev's tests and benches: large but valid
TRX and JUnit XML (with the counts they hold printed as JSON), hostile XML
(external entities, entity expansion, deep nesting, ...) and an endless
stream of nested elements for FIFO tests.

  gen_results.py trx OUT [--results N] [--stdout-bytes B | --size S]
                         [--shape full|lean] [--data-driven K] [--no-bom]
  gen_results.py junit OUT [--results N] [--suites K] [--stdout-bytes B | --size S]
  gen_results.py hostile KIND OUT [--target PATH] [--depth N] [--size S] [--root trx|junit]
  gen_results.py stream [--max-bytes S] [--root trx|junit]     (to stdout)

trx and junit print one JSON object on stdout: the counts abev must find
({"total", "executed", "passed", "failed", "errors", "skipped", "other"})
and "bytes", the file's size. Everything is deterministic: the same
arguments give the same bytes. Sizes accept a K, M or G suffix (powers of 1024).

Hostile kinds: xxe-file (an external entity naming --target, default
/etc/hostname), billion-laughs, external-dtd (a DOCTYPE naming a DTD file
written next to OUT, which declares an entity naming --target), nested
(--depth N nested elements under a known root), sparse (nested elements at
the start of a sparse file of --size bytes, default 2G, made with truncate),
non-xml (binary bytes), unknown-root, trx-no-outcome (a TRX whose second
result has no outcome attribute: prints its expected counts as JSON).
"""
import argparse
import json
import os
import sys

TRX_NS = "http://microsoft.com/schemas/VisualStudio/TeamTest/2010"
TEST_TYPE = "13cdc9d9-ddb5-4fa4-a97d-d965ccfc6d4b"
LIST_ID = "8c84fa94-04c1-424b-9868-57a2d4851a1d"
ZERO = ("passed", "failed", "errors", "skipped", "other")


def size_arg(s):
    s = s.strip()
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(s[-1:].upper())
    return int(float(s[:-1]) * mult) if mult else int(s)


def guid(kind, i):
    """A GUID-shaped id, unique per (kind, i), deterministic."""
    return f"{kind:08x}-{(i >> 32) & 0xffff:04x}-4{(i >> 16) & 0xfff:03x}-8{i >> 48 & 0xfff:03x}-{i & 0xffffffffffff:012x}"


def stdout_text(i, nbytes):
    """Benchmark-looking lines (with characters that need escaping), nbytes long once escaped."""
    if nbytes <= 0:
        return ""
    out = []
    n = 0
    k = 0
    while n < nbytes:
        line = f"iteration {k}: {100 + (i * 7 + k * 13) % 900} ns/op &lt;ok&gt;\n"
        out.append(line)
        n += len(line)
        k += 1
    s = "".join(out)[:nbytes]
    # Never cut an escape in half.
    amp = s.rfind("&")
    if amp >= 0 and ";" not in s[amp:]:
        s = s[:amp] + "." * (nbytes - amp)
    return s


# --- TRX --------------------------------------------------------------------

# The outcome of leaf i: mostly Passed, with every kind abev counts.
#   Passed -> passed; Failed -> failed; NotExecuted -> skipped;
#   Timeout -> errors (executed); Inconclusive -> other (executed);
#   None (no outcome attribute: the enum default, Error) -> errors, not executed.
def trx_outcome(i):
    r = i % 100
    if r in (3, 41, 77):
        return "Failed"
    if r in (5, 55):
        return "NotExecuted"
    if r == 60 and i % 1000 == 60:
        return "Timeout"
    if r == 70 and i % 1000 == 70:
        return "Inconclusive"
    if r == 90 and i % 1000 == 90:
        return None
    return "Passed"


def count(counts, outcome):
    counts["total"] += 1
    key = {"Passed": "passed", "Failed": "failed", "NotExecuted": "skipped",
           "Timeout": "errors", "Inconclusive": "other", None: "errors"}[outcome]
    counts[key] += 1
    if outcome == "Timeout":
        counts["_timeout"] = counts.get("_timeout", 0) + 1
    if outcome not in ("NotExecuted", None):
        counts["executed"] += 1


def trx_result(i, name, outcome, out, shape, result_type=None, parent=None, inner=""):
    attrs = [f'executionId="{guid(1, i)}"']
    if parent is not None:
        attrs.append(f'parentExecutionId="{guid(1, parent)}"')
    attrs.append(f'testId="{guid(2, i if parent is None else parent)}"')
    attrs.append(f'testName="{name}"')
    if shape == "full":
        attrs.append('computerName="ci-runner-01"')
    attrs.append(f'duration="00:00:00.{(i * 7919) % 10000000:07d}"')
    if shape == "full":
        attrs.append('startTime="2026-12-02T10:00:00.0000000+00:00" '
                     'endTime="2026-12-02T10:00:01.0000000+00:00"')
        attrs.append(f'testType="{TEST_TYPE}"')
    if outcome is not None:
        attrs.append(f'outcome="{outcome}"')
    if shape == "full":
        attrs.append(f'testListId="{LIST_ID}" relativeResultsDirectory="{guid(1, i)}"')
    if result_type:
        attrs.append(f'resultType="{result_type}"')
    body = ""
    if out or outcome == "Failed":
        body += "<Output>"
        if out:
            body += f"<StdOut>{out}</StdOut>"
        if outcome == "Failed":
            body += ("<ErrorInfo><Message>Assert.AreEqual failed. Expected:&lt;1&gt;. "
                     "Actual:&lt;2&gt;.</Message><StackTrace>   at Bench.Suite.Test() in "
                     "Suite.cs:line 42</StackTrace></ErrorInfo>")
        body += "</Output>"
    body += inner
    tag = "UnitTestResult"
    if not body:
        return f"    <{tag} {' '.join(attrs)} />\n"
    return f"    <{tag} {' '.join(attrs)}>{body}</{tag}>\n"


def gen_trx(path, n, stdout_bytes, shape, data_driven, bom):
    counts = dict(total=0, executed=0, **{k: 0 for k in ZERO})
    head = ('<?xml version="1.0" encoding="utf-8"?>\n'
            f'<TestRun id="{guid(9, 0)}" name="abev-gen 2026-12-02 10:00:00" '
            f'runUser="ci" xmlns="{TRX_NS}">\n'
            '  <Times creation="2026-12-02T10:00:00.0000000+00:00" '
            'queuing="2026-12-02T10:00:00.0000000+00:00" '
            'start="2026-12-02T10:00:00.0000000+00:00" '
            'finish="2026-12-02T10:05:00.0000000+00:00" />\n'
            f'  <TestSettings name="default" id="{guid(8, 0)}">\n'
            '    <Deployment runDeploymentRoot="abev-gen" />\n'
            '  </TestSettings>\n  <Results>\n')
    names = []
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        if bom:
            f.write("\ufeff")
        f.write(head)
        buf = []
        i = 0
        while i < n:
            name = f"Bench.Suite{i % 97:02d}.Test{i:07d}"
            if data_driven and i % data_driven == data_driven - 1 and i + 3 <= n:
                # A data-driven parent and its three rows: only the rows count.
                rows = []
                worst = "Passed"
                for j in range(3):
                    o = trx_outcome(i + j)
                    o = o if o in ("Passed", "Failed") else "Passed"
                    if o == "Failed":
                        worst = "Failed"
                    count(counts, o)
                    rows.append(trx_result(i + j, f"{name} (Data Row {j})", o,
                                           stdout_text(i + j, stdout_bytes), shape,
                                           "DataDrivenDataRow", parent=n + i).strip())
                buf.append(trx_result(n + i, name, worst, "", shape, "DataDrivenTest",
                                      inner="<InnerResults>" + "".join(rows) + "</InnerResults>"))
                names.append((n + i, name))
                i += 3
            else:
                o = trx_outcome(i)
                count(counts, o)
                buf.append(trx_result(i, name, o, stdout_text(i, stdout_bytes), shape))
                names.append((i, name))
                i += 1
            if len(buf) >= 2000:
                f.write("".join(buf))
                buf.clear()
        f.write("".join(buf))
        buf.clear()
        f.write("  </Results>\n")
        if shape == "full":
            f.write("  <TestDefinitions>\n")
            for k, name in names:
                cls, meth = name.rsplit(".", 1)
                buf.append(f'    <UnitTest name="{name}" storage="/src/bench.dll" id="{guid(2, k)}">'
                           f'<Execution id="{guid(1, k)}" /><TestMethod codeBase="/src/bench.dll" '
                           f'adapterTypeName="executor://mstestadapter/v2" className="{cls}" '
                           f'name="{meth}" /></UnitTest>\n')
                if len(buf) >= 2000:
                    f.write("".join(buf))
                    buf.clear()
            f.write("".join(buf))
            buf.clear()
            f.write("  </TestDefinitions>\n  <TestEntries>\n")
            for k, _ in names:
                buf.append(f'    <TestEntry testId="{guid(2, k)}" executionId="{guid(1, k)}" '
                           f'testListId="{LIST_ID}" />\n')
                if len(buf) >= 2000:
                    f.write("".join(buf))
                    buf.clear()
            f.write("".join(buf))
            f.write("  </TestEntries>\n  <TestLists>\n"
                    f'    <TestList name="Results Not in a List" id="{LIST_ID}" />\n'
                    "  </TestLists>\n")
        outcome = "Completed" if counts["failed"] == counts["errors"] == 0 else "Failed"
        timeouts = counts.pop("_timeout", 0)
        c = counts
        # The file's own counters agree with its results (abev notes any disagreement).
        f.write(f'  <ResultSummary outcome="{outcome}">\n'
                f'    <Counters total="{c["total"]}" executed="{c["executed"]}" passed="{c["passed"]}" '
                f'failed="{c["failed"]}" error="{c["errors"] - timeouts}" timeout="{timeouts}" '
                f'aborted="0" inconclusive="{c["other"]}" passedButRunAborted="0" notRunnable="0" '
                f'notExecuted="{c["skipped"]}" disconnected="0" warning="0" completed="0" '
                f'inProgress="0" pending="0" />\n'
                "  </ResultSummary>\n</TestRun>\n")
    counts["bytes"] = os.path.getsize(path)
    return counts


def fit_stdout(gen, path, n, target, **kw):
    """Finds the per-test stdout size that makes the file about target bytes."""
    probe = path + ".probe"
    small = max(1, min(n, 2000))
    try:
        a = gen(probe, small, stdout_bytes=100, **kw)["bytes"]
        b = gen(probe, small, stdout_bytes=1100, **kw)["bytes"]
    finally:
        if os.path.exists(probe):
            os.unlink(probe)
    per_stdout_byte = (b - a) / (small * 1000.0)
    per_result = a / small - 100 * per_stdout_byte
    return max(0, int(round((target / n - per_result) / per_stdout_byte)))


# --- JUnit ------------------------------------------------------------------

# The outcome of testcase i: pass, <failure>, <error>, <skipped/>.
def junit_outcome(i):
    r = i % 50
    return {7: "failure", 19: "error", 23: "skipped", 31: "skipped"}.get(r, "pass")


def gen_junit(path, n, stdout_bytes, suites):
    counts = dict(total=0, executed=0, **{k: 0 for k in ZERO})
    per = [n // suites + (1 if s < n % suites else 0) for s in range(suites)]
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write('<?xml version="1.0" encoding="UTF-8"?>\n')
        f.write(f'<testsuites name="abev-gen" tests="{n}">\n')
        i = 0
        for s, m in enumerate(per):
            outs = [junit_outcome(k) for k in range(i, i + m)]
            f.write(f'  <testsuite name="suite{s}" tests="{m}" failures="{outs.count("failure")}" '
                    f'errors="{outs.count("error")}" skipped="{outs.count("skipped")}" '
                    f'time="{m * 0.001:.3f}" timestamp="2026-12-02T10:00:00">\n')
            buf = []
            for _ in range(m):
                o = junit_outcome(i)
                counts["total"] += 1
                counts[{"pass": "passed", "failure": "failed", "error": "errors",
                        "skipped": "skipped"}[o]] += 1
                if o != "skipped":
                    counts["executed"] += 1
                body = {"pass": "", "failure": '<failure message="expected 1, got 2">trace</failure>',
                        "error": '<error message="boom" type="RuntimeError">trace</error>',
                        "skipped": '<skipped message="not today"/>'}[o]
                out = stdout_text(i, stdout_bytes)
                if out:
                    body += f"<system-out>{out}</system-out>"
                buf.append(f'    <testcase classname="pkg.suite{s}" name="test_{i}" time="0.001">'
                           f'{body}</testcase>\n')
                i += 1
                if len(buf) >= 2000:
                    f.write("".join(buf))
                    buf.clear()
            f.write("".join(buf))
            f.write("  </testsuite>\n")
        f.write("</testsuites>\n")
    counts["bytes"] = os.path.getsize(path)
    return counts


# --- hostile ----------------------------------------------------------------

def root_open(root):
    return (f'<TestRun xmlns="{TRX_NS}">' if root == "trx" else "<testsuites>",
            "</TestRun>" if root == "trx" else "</testsuites>")


def body_using(entity, root):
    if root == "trx":
        return (f'<TestRun xmlns="{TRX_NS}"><Results>'
                '<UnitTestResult testName="leak" outcome="Passed">'
                f"<Output><StdOut>&{entity};</StdOut></Output></UnitTestResult>"
                "</Results></TestRun>\n")
    return ('<testsuites><testsuite name="s"><testcase classname="c" name="leak">'
            f"<system-out>&{entity};</system-out></testcase></testsuite></testsuites>\n")


def gen_hostile(kind, path, target, depth, size, root):
    rootname = "TestRun" if root == "trx" else "testsuites"
    expect = None
    if kind == "xxe-file":
        data = ('<?xml version="1.0" encoding="utf-8"?>\n'
                f'<!DOCTYPE {rootname} [\n  <!ENTITY xxe SYSTEM "file://{target}">\n]>\n'
                + body_using("xxe", root))
    elif kind == "billion-laughs":
        ents = ['  <!ENTITY lol0 "lol">']
        for k in range(1, 10):
            ents.append(f'  <!ENTITY lol{k} "' + f"&lol{k - 1};" * 10 + '">')
        data = ('<?xml version="1.0"?>\n'
                f"<!DOCTYPE {rootname} [\n" + "\n".join(ents) + "\n]>\n" + body_using("lol9", root))
    elif kind == "external-dtd":
        dtd = path + ".dtd"
        with open(dtd, "w") as f:
            f.write(f'<!ENTITY secret SYSTEM "file://{target}">\n'
                    f'<!ENTITY % leak SYSTEM "file://{target}">\n')
        data = ('<?xml version="1.0"?>\n'
                f'<!DOCTYPE {rootname} SYSTEM "file://{os.path.abspath(dtd)}">\n'
                + body_using("secret", root))
    elif kind == "nested":
        o, c = root_open(root)
        data = o + "<a>" * depth + "</a>" * depth + c + "\n"
    elif kind == "sparse":
        o, _ = root_open(root)
        with open(path, "w") as f:
            f.write('<?xml version="1.0"?>\n' + o + "<a>" * depth)
        os.truncate(path, size)   # the rest is a hole: no disk space used
        return None
    elif kind == "non-xml":
        data = b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 16 + b"\x00\xff\xfe<TestRun>"
        with open(path, "wb") as f:
            f.write(data)
        return None
    elif kind == "unknown-root":
        data = ('<?xml version="1.0" encoding="utf-8"?>\n'
                '<html><body><testsuite name="s"><testcase name="t"/></testsuite></body></html>\n')
    elif kind == "trx-no-outcome":
        # The first result passed; the second has no outcome attribute (the
        # default, Error: not a pass, not executed); the counters claim two passes.
        data = ('\ufeff<?xml version="1.0" encoding="utf-8"?>\n'
                f'<TestRun id="{guid(9, 1)}" name="no-outcome" xmlns="{TRX_NS}">\n'
                '  <Results>\n'
                + trx_result(0, "Suite.Passes", "Passed", "", "full")
                + trx_result(1, "Suite.NoOutcome", None, "", "full")
                + '  </Results>\n  <ResultSummary outcome="Completed">\n'
                '    <Counters total="2" executed="2" passed="2" failed="0" error="0" timeout="0" '
                'aborted="0" inconclusive="0" passedButRunAborted="0" notRunnable="0" '
                'notExecuted="0" disconnected="0" warning="0" completed="0" inProgress="0" '
                'pending="0" />\n  </ResultSummary>\n</TestRun>\n')
        expect = dict(total=2, executed=1, passed=1, failed=0, errors=1, skipped=0, other=0)
    else:
        sys.exit(f"gen_results: unknown hostile kind {kind!r}")
    with open(path, "w", encoding="utf-8") as f:
        f.write(data)
    return expect


def stream(max_bytes, root):
    """Writes a root then nested elements to stdout until max_bytes or until
    the reader closes the pipe (exits 0 quietly then)."""
    o, _ = root_open(root)
    chunk = ("<a>" * 21845).encode()     # 64 KiB - 1
    out = sys.stdout.buffer
    n = 0
    try:
        head = ('<?xml version="1.0"?>\n' + o).encode()
        out.write(head)
        n += len(head)
        while max_bytes is None or n < max_bytes:
            part = chunk if max_bytes is None else chunk[:max_bytes - n]
            out.write(part)
            n += len(part)
        out.flush()
    except BrokenPipeError:
        # Keep Python from complaining when it flushes stdout at exit.
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except OSError:
            pass
    return 0


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    for name in ("trx", "junit"):
        s = sub.add_parser(name)
        s.add_argument("out")
        s.add_argument("--results", type=int, default=1000)
        g = s.add_mutually_exclusive_group()
        g.add_argument("--stdout-bytes", type=size_arg, default=0)
        g.add_argument("--size", type=size_arg, default=None,
                       help="pad each test's stdout so the file is about this size")
        if name == "trx":
            s.add_argument("--shape", choices=("full", "lean"), default="full",
                           help="full: every attribute vstest writes, TestDefinitions and "
                                "TestEntries; lean: results and summary only")
            s.add_argument("--data-driven", type=int, default=0, metavar="K",
                           help="every K-th result is a data-driven parent with three rows")
            s.add_argument("--no-bom", action="store_true")
        else:
            s.add_argument("--suites", type=int, default=4)
    h = sub.add_parser("hostile")
    h.add_argument("kind", choices=("xxe-file", "billion-laughs", "external-dtd", "nested",
                                    "sparse", "non-xml", "unknown-root", "trx-no-outcome"))
    h.add_argument("out")
    h.add_argument("--target", default="/etc/hostname")
    h.add_argument("--depth", type=int, default=100000)
    h.add_argument("--size", type=size_arg, default=2 << 30)
    h.add_argument("--root", choices=("trx", "junit"), default="trx")
    st = sub.add_parser("stream")
    st.add_argument("--max-bytes", type=size_arg, default=None)
    st.add_argument("--root", choices=("trx", "junit"), default="trx")
    a = p.parse_args(argv)

    if a.cmd == "trx":
        kw = dict(shape=a.shape, data_driven=a.data_driven, bom=not a.no_bom)
        sb = a.stdout_bytes if a.size is None else fit_stdout(gen_trx, a.out, a.results, a.size, **kw)
        print(json.dumps(gen_trx(a.out, a.results, sb, **kw)))
    elif a.cmd == "junit":
        kw = dict(suites=max(1, a.suites))
        sb = a.stdout_bytes if a.size is None else fit_stdout(gen_junit, a.out, a.results, a.size, **kw)
        print(json.dumps(gen_junit(a.out, a.results, sb, **kw)))
    elif a.cmd == "hostile":
        expect = gen_hostile(a.kind, a.out, a.target, a.depth, a.size, a.root)
        if expect is not None:
            print(json.dumps(expect))
    else:
        return stream(a.max_bytes, a.root)
    return 0


if __name__ == "__main__":
    sys.exit(main())
