"""Validation of abev's JSON documents against evidence-schema/.

validate_evidence(testcase, evidence_dir) checks an evidence directory:
DIR/result.json against run.schema.json, every DIR/runs/**/result.json
against invocation.schema.json, DIR/plan.json against plan.schema.json and
DIR/metadata.json against metadata.schema.json,
and fails the test case with every error found. When python's jsonschema
is not installed it validates nothing and returns False (it does not skip
the calling test, whose other checks still count); AVAILABLE says which.

The schemas refer to each other by relative $ref ("invocation.schema.json#/
$defs/record"); they resolve against the $id of the referring schema, so all
three are registered under their $id.
"""
import glob
import json
import os
import sys

try:
    import jsonschema
    from jsonschema import Draft202012Validator
    AVAILABLE = True
    WHY_UNAVAILABLE = ""
except ImportError as e:  # CI installs python3-jsonschema
    jsonschema = None
    Draft202012Validator = None
    AVAILABLE = False
    WHY_UNAVAILABLE = f"python jsonschema is not importable ({e}); install python3-jsonschema"

_src = os.environ.get("ABEV_SRC") or os.path.normpath(
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
SCHEMA_DIR = os.path.join(_src, "evidence-schema")
KINDS = ("plan", "run", "invocation", "journal", "results", "metadata", "compare")

_schemas = {}
_validators = {}
_warned = False


def schema(kind):
    """The parsed schema evidence-schema/<kind>.schema.json."""
    if kind not in _schemas:
        with open(os.path.join(SCHEMA_DIR, f"{kind}.schema.json"), encoding="utf-8") as f:
            _schemas[kind] = json.load(f)
    return _schemas[kind]


def validator(kind):
    """A Draft 2020-12 validator for kind whose $refs reach the other schemas."""
    if not AVAILABLE:
        raise RuntimeError(WHY_UNAVAILABLE)
    if kind in _validators:
        return _validators[kind]
    docs = [schema(k) for k in KINDS]
    try:
        from referencing import Registry, Resource
        from referencing.jsonschema import DRAFT202012
        registry = Registry().with_resources(
            (d["$id"], Resource.from_contents(d, default_specification=DRAFT202012))
            for d in docs)
        v = Draft202012Validator(schema(kind), registry=registry)
    except ImportError:  # jsonschema < 4.18 (Debian 12 has 4.10)
        resolver = jsonschema.RefResolver.from_schema(
            schema(kind), store={d["$id"]: d for d in docs})
        v = Draft202012Validator(schema(kind), resolver=resolver)
    _validators[kind] = v
    return v


def errors(kind, doc):
    """Every way doc breaks the schema of kind, as readable lines (empty: valid)."""
    out = []
    for e in sorted(validator(kind).iter_errors(doc), key=lambda e: list(e.absolute_path)):
        where = "/".join(str(p) for p in e.absolute_path) or "(top)"
        out.append(f"{where}: {e.message}")
    return out


def _check_file(kind, path, problems):
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        problems.append(f"{path}: cannot read as JSON: {e}")
        return
    for line in errors(kind, doc):
        problems.append(f"{path}: {line}")


def _check_journal(path, problems):
    """Each whole line of a journal left behind (a last line without its line
    break was cut short when abev stopped)."""
    try:
        with open(path, "rb") as f:
            lines = f.read().split(b"\n")[:-1]
    except FileNotFoundError:
        return
    for n, line in enumerate(lines, 1):
        try:
            doc = json.loads(line)
        except ValueError as e:
            problems.append(f"{path}: line {n}: cannot read as JSON: {e}")
            continue
        for err in errors("journal", doc):
            problems.append(f"{path}: line {n}: {err}")


def validate_evidence(testcase, evidence_dir):
    """Fails testcase unless every JSON document of evidence_dir matches its
    schema. Returns True when validated, False when jsonschema is missing."""
    global _warned
    if not AVAILABLE:
        if not _warned:
            print(f"schemas: evidence not validated: {WHY_UNAVAILABLE}", file=sys.stderr)
            _warned = True
        return False
    problems = []
    _check_file("run", os.path.join(evidence_dir, "result.json"), problems)
    _check_file("plan", os.path.join(evidence_dir, "plan.json"), problems)
    _check_file("metadata", os.path.join(evidence_dir, "metadata.json"), problems)
    runs = sorted(glob.glob(os.path.join(evidence_dir, "runs", "**", "result.json"),
                            recursive=True))
    for path in runs:
        _check_file("invocation", path, problems)
    _check_journal(os.path.join(evidence_dir, "invocations.jsonl"), problems)
    if problems:
        testcase.fail(f"evidence in {evidence_dir} does not match evidence-schema/:\n  "
                      + "\n  ".join(problems))
    return True
