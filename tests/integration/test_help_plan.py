"""`abev help plan` is the one plan reference (orchestrator/plan/plan_doc.c).
docs/plan-keys.md is its --markdown output, key for key with the same
type and default; the man page's PLAN section names every key and no other;
evidence-schema/plan.schema.json has exactly its keys; and its full example
uses every key and is accepted by abev's own plan reader."""
import json
import os
import re

from common import SRC, AbevTestCase

PLAN_KEYS = "docs/plan-keys.md"


def read(*parts):
    with open(os.path.join(SRC, *parts), encoding="utf-8") as f:
        return f.read()


def wild(key):
    """gates.<metric>.budget -> gates.<*>.budget: names the plan chooses."""
    return re.sub(r"<[^>]*>", "<*>", key)


def schema_keys():
    """Every key path of plan.schema.json: [] for the items of an array,
    <*> for a name the plan chooses (where that holds an object or array)."""
    schema = json.loads(read("evidence-schema", "plan.schema.json"))

    def resolve(node):
        while "$ref" in node:
            node = schema["$defs"][node["$ref"].split("/")[-1]]
        return node

    out = {}

    def walk(node, prefix):
        node = resolve(node)
        for name, sub in node.get("properties", {}).items():
            key = f"{prefix}{name}"
            out[key] = resolve(sub)
            walk_value(resolve(sub), key)
        extra = node.get("additionalProperties")
        if isinstance(extra, dict):
            extra = resolve(extra)
            if "properties" in extra or extra.get("type") == "array":
                out[f"{prefix}<*>"] = extra
                walk_value(extra, f"{prefix}<*>")

    def walk_value(node, key):
        if key == "base":  # a variant without name: documented under variants[]
            return
        if "properties" in node or "additionalProperties" in node:
            walk(node, key + ".")
        items = node.get("items")
        if isinstance(items, dict) and "properties" in resolve(items):
            walk(resolve(items), key + "[].")

    walk(schema, "")
    return out


class HelpPlanTest(AbevTestCase):
    def reference(self):
        """{key: (type, default)} from `abev help plan`, and the whole text."""
        cp = self.abev("help", "plan", check=0)
        keys = {}
        lines = cp.stdout.splitlines()
        for i, line in enumerate(lines):
            m = re.match(r"^    type: (.+?)  default: (.+)$", line)
            if m:
                key = lines[i - 1]
                self.assertRegex(key, r"^[a-z_]+(\[\])?([.][a-z_<>]+(\[\])?)*$")
                self.assertNotIn(key, keys, f"{key} twice")
                keys[key] = (m.group(1), m.group(2))
                self.assertTrue(lines[i + 1].startswith("    "), f"{key} has no meaning")
        self.assertGreater(len(keys), 50)
        return keys, cp.stdout

    def test_docs_table_is_the_reference(self):
        keys, _ = self.reference()
        doc = read("docs", "plan-keys.md")
        block = doc[doc.index("\n| key |") + 1:]
        md = self.abev("help", "plan", "--markdown", check=0).stdout
        self.assertEqual(block, md, f"{PLAN_KEYS}'s table is not `abev help plan --markdown`: "
                         "run 'make docs'")
        rows = {}
        for line in block.splitlines()[2:]:
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
            self.assertEqual(len(cells), 4, line)
            plain = [c.replace("`", "").replace("\\|", "|") for c in cells]
            rows[plain[0]] = (plain[1], plain[2])
        self.assertEqual(sorted(rows), sorted(keys), f"{PLAN_KEYS} and abev help plan differ in keys")
        for key, (typ, default) in keys.items():
            self.assertEqual(rows[key], (typ, default), key)

    def test_schema_has_the_same_keys(self):
        keys, _ = self.reference()
        documented = {wild(k) for k in keys}
        in_schema = set(schema_keys())
        self.assertEqual(sorted(in_schema - documented), [], "in the schema, not documented")
        self.assertEqual(sorted(documented - in_schema), [], "documented, not in the schema")
        schema = json.loads(read("evidence-schema", "plan.schema.json"))
        base = set(schema["$defs"]["base"]["properties"])
        variant = set(schema["$defs"]["variant"]["properties"])
        # The base names no variant and prepares none (schedule.prepare does that),
        # nor has the parameters each variant has of its own.
        self.assertEqual(base, variant - {"name", "parameters", "prepare", "setup", "cleanup"})

    def test_man_page_names_every_key(self):
        keys, _ = self.reference()
        man = read("abev.1")
        section = man[man.index("\n.SH PLAN\n"):]
        section = section[:section.index("\n.SH ", 1)]
        bold = set(re.findall(r"^\.BR? (?:\\%)?([a-z_.]+)", section, re.M))
        bold |= set(re.findall(r"\\fB([a-z_.]+)\\fR", section))
        headers = set(re.findall(r"^\.TP\n\.B (?:\\%)?([a-z_.]+)$", section, re.M))
        tokens = set()
        for key in keys:
            if key.endswith(">") or any(k.startswith(key + ".") for k in keys):
                continue  # versions.<name>, gates.<metric>, schedule: named by their keys
            token = key.split(".")[-1] if "[]" in key or "<" in key else key
            tokens.add(token)
            self.assertIn(token, bold, f"abev.1's PLAN section does not name {key} ({token})")
        leaves = {k.split(".")[-1] for k in keys}
        for h in headers:
            self.assertTrue(h in keys or h in leaves, f"abev.1 documents '{h}', which is no key")

    def test_example_uses_every_key_and_is_accepted(self):
        keys, text = self.reference()
        example = text[text.index("Example:\n\n") + len("Example:\n\n"):]
        rest = example[example.index("\n}\n") + 3:]
        doc = json.loads(example[:example.index("\n}\n") + 2])
        used = set()

        def walk(node, prefix):
            if isinstance(node, dict):
                for k, v in node.items():
                    name = "<*>" if prefix in ("versions.", "gates.") else k
                    used.add(prefix + name)
                    if name not in ("env", "parameters"):  # their names are the plan's own
                        walk(v, prefix + name + ".")
            elif isinstance(node, list):
                for v in node:
                    if isinstance(v, dict):
                        walk(v, prefix[:-1] + "[].")

        walk(doc, "")
        documented = {wild(k) for k in keys}
        apart = {"base", "variants_file", "schedule.until", "schedule.min_rounds",
                 "schedule.max_rounds", "schedule.looks"}
        self.assertEqual(sorted(documented - used - apart), [],
                         "keys the example does not use")
        self.assertEqual(sorted(used - documented), [])
        for k in apart:
            self.assertIn(f'"{k.split(".")[-1]}"', rest)
        # abev reads it: the only problems are of this machine (no dotnet, no build,
        # no startup hook built where dotnet is missing)
        for d in ("worktrees/old", "worktrees/new"):
            os.makedirs(os.path.join(self.tmp, d))
        os.mkdir(self.path("plans"))
        with open(self.path("plans", "report.md"), "w") as f:
            f.write("# {{plan_name}}\n")
        cp = self.abev("run", self.write_plan(doc, name="plans/example.json"), "--dry-run",
                       timeout=60)
        self.assertEqual(cp.returncode, 2)
        for line in cp.stderr.splitlines():
            self.assertRegex(line, r"(command\[0\]: program 'dotnet'|assemblies\[0\]: |"
                                   r"dotnet_runtime: abev's \.NET startup hook)", line)

    def test_main_help_points_to_it(self):
        cp = self.abev("--help", check=0)
        self.assertIn("See 'abev help plan' for the plan format", cp.stdout)
        self.assertIn("help plan", cp.stdout)
        bad = self.abev("help", "plan", "--nope")
        self.assertEqual(bad.returncode, 2)
        self.assertIn("usage: abev help plan", bad.stderr)
