"""The ratios of issue 41 and their goals: how a figure is judged (met or
missed), what a gross slip is (the short form's only failure), what counts as
worse than the last table, and the dated table `make bench` appends to
bench/results.md under "Ratios by commit".

Pure text and arithmetic: no measuring, no clock but the date it is handed,
no file but the one named to append_history(). bench/bench.py measures and
calls it; tests/integration/test_bench_guard.py drives it on scripted figures.
"""
import re

# One row per ratio: key (the first column of every dated table, matched
# against the last table's), the group measured with it, the kind of goal and
# its bound, whether a gross slip fails the short form, the CPUs it needs to
# (a goal that counts on a second core is only reported with one), and what
# is measured.
#   ratio:  abev / stock tool, at most GOAL
#   within: abev - stock tool in ms, within +-GOAL
#   under:  abev's figure in MiB, below GOAL (the stock tool's beside it)
GOALS = [
    # Provisional fail line (fail_at, in place of twice the goal) while the
    # goal is not met: abev takes about 2.6-3.2x hyperfine's time on 2 idle
    # cores and up to 5.6x beside a busy loop per core (issue 41 is open), so
    # 3.0x would fail every CI run. 6.0x still fails a slip that doubles the
    # time per invocation; the line goes back to 3.0x once 1.5x is met.
    {"key": "overhead", "group": "overhead", "kind": "ratio", "goal": 1.5, "fails": True,
     "fail_at": 6.0, "fail_why": "provisional until the 1.50x goal is met (issue 41)",
     "what": "`abev run` of {n} x `true` (3 warmups, gap 0) vs "
             "`hyperfine -N --runs {n} --warmup 3`, whole command"},
    # Not failed on: it is a difference of two figures near 1 ms, and on a busy
    # runner waking the child on another core alone can move it by more.
    {"key": "bias", "group": "overhead", "kind": "within", "goal": 0.3, "fails": False,
     "what": "timing bias on `true`: abev's recorded wall vs hyperfine's mean"},
    {"key": "trx", "group": "trx", "kind": "ratio", "goal": 0.7, "fails": True,
     "what": "`abev results --json` vs `xmllint --stream --noout`, {size}"},
    {"key": "trx-rss", "group": "trx", "kind": "under", "goal": 16.0, "fails": True,
     "what": "peak RSS of `abev results --json` (xmllint's beside it), {size}"},
    # abev hashes on every core, openssl on one: on one core abev takes about
    # 0.9x openssl's time, just below twice the goal.
    {"key": "hash", "group": "evidence", "kind": "ratio", "goal": 0.5, "fails": True, "cpus": 2,
     "what": "hashing {size} (16 files) vs `openssl dgst -sha256`"},
    {"key": "pack", "group": "evidence", "kind": "ratio", "goal": 0.7, "fails": True,
     "what": "`abev pack` vs `tar --zstd -cf`, {size}"},
    {"key": "verify", "group": "evidence", "kind": "ratio", "goal": 0.2, "fails": True,
     "what": "`abev verify` vs `sha256sum -c`, {size} (keep: was 0.12x)"},
]
GOAL = {g["key"]: g for g in GOALS}
# The ratios measured together (one measurement gives each group's rows).
GROUPS = sorted({g["group"] for g in GOALS})

# A gross slip: the figure beyond this many times its goal.
GROSS = 2.0
# Worse than the last table: a ratio or an RSS up by more than this share of
# itself; the bias (a difference, near 0) by more than this share of its bound.
WORSE = 0.10

HISTORY_HEADING = "## Ratios by commit"
HISTORY_INTRO = (
    "Appended by every `make bench`, never rewritten: one table per run, with the date "
    "(UTC), the commit (`git describe --always --dirty`) and the machine. Each figure is "
    "the best of the run's rounds, abev and the stock tool taking turns; \"against\" "
    "compares it with the table before, and **worse** marks a figure more than 10 % worse "
    "than there (the bias: by more than 10 % of its 0.3 ms bound); the stop that made a "
    "figure that much worse says why in its note.\n")


def value(key, abev, stock):
    """The figure judged, as the table shows it (so that the next table,
    which reads it back, compares like with like): abev / stock, abev -
    stock (ms) or abev's MiB."""
    kind = GOAL[key]["kind"]
    if kind == "ratio":
        return round(abev / stock, 2)
    return round(abev - stock, 3) if kind == "within" else round(abev, 1)


def met(key, v):
    g = GOAL[key]
    return abs(v) <= g["goal"] if g["kind"] == "within" else v <= g["goal"]


def gross(key, v):
    """Beyond GROSS times the goal: a gross slip, failed beyond fail_line()."""
    g = GOAL[key]
    return (abs(v) if g["kind"] == "within" else v) > GROSS * g["goal"]


def fail_line(key):
    """Where the short form fails key: twice its goal, or its provisional line."""
    g = GOAL[key]
    return g.get("fail_at", GROSS * g["goal"])


def slipped(key, v):
    """Beyond its fail line: the short form's failure, where the row fails."""
    g = GOAL[key]
    return (abs(v) if g["kind"] == "within" else v) > fail_line(key)


def worse(key, v, old):
    """More than WORSE worse than the last table's figure old."""
    g = GOAL[key]
    if g["kind"] == "within":
        return abs(v) - abs(old) > WORSE * g["goal"]
    return old > 0 and v > old * (1 + WORSE)


def fmt_value(key, v):
    kind = GOAL[key]["kind"]
    return f"{v:.2f}x" if kind == "ratio" else f"{v:+.3f} ms" if kind == "within" \
        else f"{v:.1f} MiB"


def fmt_goal(key):
    g = GOAL[key]
    return {"ratio": f"at most {g['goal']:.2f}x", "within": f"within {g['goal']:.1f} ms",
            "under": f"under {g['goal']:.0f} MiB"}[g["kind"]]


def fmt_change(key, v, old):
    if old is None:
        return ""
    if GOAL[key]["kind"] == "within":
        text = f"{abs(v) - abs(old):+.3f} ms"
    else:
        text = f"{(v / old - 1) * 100:+.0f} %" if old > 0 else ""
    return text + (" **worse**" if worse(key, v, old) else "")


def fmt_figure(key, x):
    if GOAL[key]["kind"] == "under":
        return f"{x:.1f} MiB"
    if GOAL[key]["kind"] == "within":
        return f"{x:.3f} ms"
    return f"{x * 1e3:.1f} ms" if x < 10 else f"{x:.2f} s"


def row(key, abev, stock, median=None, **what):
    """One measured ratio: abev's and the stock tool's figures (seconds, ms for
    the bias, MiB for RSS) and, where there is one, the figure of the medians."""
    v = value(key, abev, stock)
    return {"key": key, "what": GOAL[key]["what"].format(**what), "abev": abev,
            "stock": stock, "value": v, "median": median, "met": met(key, v),
            "gross": gross(key, v), "slipped": slipped(key, v)}


def fails(key, cpus):
    """Whether a gross slip of key fails the short form on cpus CPUs."""
    return GOAL[key]["fails"] and cpus >= GOAL[key].get("cpus", 1)


def failures(rows, cpus):
    """The rows beyond their fail line that fail the short form on cpus CPUs."""
    return [r for r in rows if r["slipped"] and fails(r["key"], cpus)]


def best_of(rows, again):
    """rows with each row of again that is better (nearer its goal's side:
    lower, the bias nearer 0) in place of its own."""
    better = {r["key"]: r for r in again}

    def judged(r):
        return abs(r["value"]) if GOAL[r["key"]]["kind"] == "within" else r["value"]
    return [better[r["key"]] if r["key"] in better and judged(better[r["key"]]) < judged(r)
            else r for r in rows]


def render(rows, previous=None, previous_label="", cpus=2):
    """The ratio table; previous maps key -> the last table's figure."""
    previous = previous or {}
    head = ["measure", "what", "abev", "stock tool", "ratio", "of medians", "goal", ""]
    if previous_label:
        head.append(f"against {previous_label}")
    out = ["| " + " | ".join(head) + " |",
           "|" + "|".join("---:" if 2 <= i <= 5 else "---" for i in range(len(head))) + "|"]
    for r in rows:
        k = r["key"]
        status = "met" if r["met"] else "missed"
        if r["gross"]:
            status += ", over twice the goal" + ("" if fails(k, cpus) else " (reported)")
            if fails(k, cpus) and not r["slipped"]:
                status += f" (fails beyond {fail_line(k):.2f}x, {GOAL[k]['fail_why']})"
        cells = [k, r["what"], fmt_figure(k, r["abev"]), fmt_figure(k, r["stock"]),
                 fmt_value(k, r["value"]),
                 fmt_value(k, r["median"]) if r["median"] is not None else "",
                 fmt_goal(k), status]
        if previous_label:
            cells.append(fmt_change(k, r["value"], previous.get(k)))
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


def worsened(rows, previous):
    return [r for r in rows if r["key"] in previous and worse(r["key"], r["value"],
                                                               previous[r["key"]])]


NUMBER = re.compile(r"[+-]?[0-9]+(?:\.[0-9]+)?")


def last_table(text):
    """The last dated table of the history section in text: (its heading's
    label, {key: figure}), or ("", {}) when there is none."""
    text = "\n" + text
    at = text.find("\n" + HISTORY_HEADING + "\n")
    if at < 0:
        return "", {}
    tables = re.split(r"(?m)^### ", text[at:])[1:]
    if not tables:
        return "", {}
    lines = tables[-1].splitlines()
    label = lines[0].split(",", 1)[-1].strip()
    head, figures = None, {}
    for line in lines[1:]:
        if not line.startswith("|"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if head is None:
            head = cells
            continue
        if "ratio" not in head or cells[0] not in GOAL:
            continue
        m = NUMBER.search(cells[head.index("ratio")])
        if m:
            figures[cells[0]] = float(m.group(0))
    return label, figures


def dated_table(rows, when, commit, machine, previous_label, previous):
    """The dated table appended to the history: heading, machine, table."""
    return (f"### {when:%Y-%m-%d %H:%M} UTC, {commit}\n\n{machine}\n\n" +
            render(rows, previous, previous_label) + "\n")


def append_history(path, rows, when, commit, machine):
    """Appends the dated table of rows to the history section of the file at
    path (adding the section at its end when it has none), comparing each
    figure with the last table there. Returns (the table appended, the
    rows more than WORSE worse than the last table, its label)."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        text = ""
    label, previous = last_table(text)
    add = ""
    if "\n" + HISTORY_HEADING + "\n" not in "\n" + text:
        add = ("\n" if text and not text.endswith("\n\n") else "") + \
            f"{HISTORY_HEADING}\n\n{HISTORY_INTRO}\n"
    elif not text.endswith("\n\n"):
        add = "\n" if text.endswith("\n") else "\n\n"
    table = dated_table(rows, when, commit, machine, label, previous)
    with open(path, "a", encoding="utf-8") as f:
        f.write(add + table)
    return table, worsened(rows, previous), label
