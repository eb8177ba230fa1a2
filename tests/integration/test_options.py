"""The option tables are the one rule of abev's command line: `abev __options`
prints every command's table, and what documents the command line is held
to them. Every option of a command is in `abev help CMD` and in the
manual's entry for that command (its COMMANDS item; abev's own options and
-h/--help in OPTIONS); the usage lines and the manual's SYNOPSIS name no
option the command's table lacks; and the manual names no option that no
table has, but for other programs' options it quotes. Also: an unknown
option names the nearest known one, as plan keys do."""
import json
import os
import re
import subprocess

from common import ABEV, SRC, AbevTestCase

# Options of other tools the manual quotes (tar, dotnet, sha256sum, and hyperfine's that
# abev bench refuses with the abev way: cli_run.c's hyperfine_options).
# Other tools' options the manual names: hyperfine's that abev bench refuses, dotnet's, tar's.
FOREIGN = {"--zstd", "--export-json", "--export", "--no-build", "--blame-hang-timeout", "--tag",
           "--setup", "--cleanup", "--show-output", "--output", "--conclude", "--input",
           "--style", "--time-unit", "--sort", "--list-runtimes",
           "--logger", "--report-trx", "--report-trx-filename", "--results-directory"}

OPTION = re.compile(r"(?<![\w-])(--?[A-Za-z][\w-]*)")


def load_tables():
    out = subprocess.run([ABEV, "__options"], capture_output=True, text=True, check=True).stdout
    doc = json.loads(out)
    assert doc["schema"] == "abev.options/1"
    return doc["commands"]


def spellings(c, with_help=True):
    return {s for o in c["options"] if with_help or o["long"] != "help"
            for s in ([f"-{o['short']}"] if o["short"] else []) + [f"--{o['long']}"]}


def roff_text(s):
    """Manual source as plain words: dashes unescaped, font changes dropped."""
    s = s.replace("\\-", "-").replace("\\(aq", "'")
    return re.sub(r"\\f(\(..|\[[^]]*\]|.)", "", s)


def man_sections():
    with open(os.path.join(SRC, "abev.1"), encoding="utf-8") as f:
        text = roff_text(f.read())
    sections = {}
    for part in re.split(r"(?m)^\.SH ", text)[1:]:
        title, _, body = part.partition("\n")
        sections[title.strip().strip('"')] = body
    return sections


def command_entries(commands_section, names):
    """{command name: its .TP item of COMMANDS}, the item's head naming it."""
    entries = {}
    for item in re.split(r"(?m)^\.TP\n", commands_section)[1:]:
        head, _, _ = item.partition("\n")
        words = re.sub(r'^\.\w+\s*', "", head).replace('"', " ").split()
        two = " ".join(words[:2])
        name = two if two in names else words[0]
        entries[name] = item
    return entries


class Tables(AbevTestCase):
    def setUp(self):
        super().setUp()
        self.cmds = load_tables()
        self.names = {c["name"] for c in self.cmds}

    def test_each_command_is_there_once(self):
        self.assertEqual(len(self.names), len(self.cmds))
        for name in ("", "run", "bench", "init", "report", "compare", "export", "verify",
                     "keygen", "pack", "results", "guard min-executed", "help", "help plan",
                     "help options", "help exit-codes"):
            self.assertIn(name, self.names)
        for c in self.cmds:
            longs = [o["long"] for o in c["options"]]
            self.assertEqual(len(longs), len(set(longs)), c["name"])
            shorts = [o["short"] for o in c["options"] if o["short"]]
            self.assertEqual(len(shorts), len(set(shorts)), c["name"])
            self.assertEqual(longs[-1], "help", c["name"])

    def test_help_names_every_option(self):
        for c in self.cmds:
            if not c["name"]:
                text = self.abev("--help", check=0).stdout
            else:
                text = self.abev(*c["name"].split(), "--help", check=0).stdout
            # abev help CMD: the same text (abev help plan, options and exit-codes are
            # topics of their own).
            if c["name"] and not c["name"].startswith("help "):
                self.assertEqual(self.abev("help", c["name"].split()[0], check=0).stdout, text)
            for o in c["options"]:
                head = (f"-{o['short']}, " if o["short"] else "") + f"--{o['long']}"
                if o["arg"]:
                    head += f" {o['arg']}"
                self.assertRegex(text, rf"(?m)^  {re.escape(head)}(  |\n)",
                                 f"abev help {c['name']}: {head}")

    def test_usage_names_only_table_options(self):
        for c in self.cmds:
            allowed = spellings(c)
            for sub in self.cmds:
                if sub["name"].startswith(c["name"] + " ") and c["name"]:
                    allowed |= spellings(sub)
            named = set(OPTION.findall(c["usage"].replace("usage: abev", "")))
            self.assertLessEqual(named, allowed, f"usage of abev {c['name']}")

    def test_manual_documents_every_option(self):
        sec = man_sections()
        entries = command_entries(sec["COMMANDS"], self.names)
        for c in self.cmds:
            where, text = ("OPTIONS", sec["OPTIONS"]) if not c["name"] else \
                (f"COMMANDS {c['name']}", entries.get(c["name"], ""))
            self.assertTrue(text, f"abev.1 has no COMMANDS entry for {c['name']}")
            found = set(OPTION.findall(text))
            for opt in sorted(spellings(c, with_help=not c["name"]) - found):
                self.fail(f"abev.1 ({where}) does not name {opt} of "
                          f"'abev {c['name']}'".replace("abev '", "'abev"))
        self.assertIn("--help", OPTION.findall(sec["OPTIONS"]))

    def test_manual_synopsis_names_only_table_options(self):
        synopsis = man_sections()["SYNOPSIS"]
        for line in re.split(r"(?m)^\.br\n", synopsis):
            words = re.sub(r'(?m)^\.\w+\s*', "", line).replace('"', " ").split()
            self.assertEqual(words[0], "abev", line)
            two = " ".join(words[1:3])
            name = two if two in self.names else (words[1] if words[1] in self.names else "")
            c = next(c for c in self.cmds if c["name"] == name)
            allowed = spellings(c)
            for sub in self.cmds:
                if name and sub["name"].startswith(name + " "):
                    allowed |= spellings(sub)
            named = set(OPTION.findall(" ".join(words[2:] if name else words[1:])))
            self.assertLessEqual(named, allowed, f"SYNOPSIS of abev {name}")

    def test_manual_names_no_option_the_tables_lack(self):
        known = set().union(*(spellings(c) for c in self.cmds))
        for title, body in man_sections().items():
            longs = {o.rstrip("-") for o in OPTION.findall(body) if o.startswith("--")}
            unknown = longs - known - FOREIGN
            self.assertFalse(unknown, f"abev.1 ({title}) names options no table has")

    def test_metric_shows_its_unit(self):
        # --metric takes NAME[UNIT]=SOURCE:ARG (stdout and stderr need the unit): the
        # table, and so help and completions, said NAME=SOURCE:ARG, unlike the manual.
        man = roff_text(open(os.path.join(SRC, "abev.1"), encoding="utf-8").read())
        self.assertIn('--metric " NAME[UNIT]=SOURCE:ARG"', man)
        for c in self.cmds:
            for o in c["options"]:
                if o["long"] == "metric":
                    with self.subTest(cmd=c["name"]):
                        self.assertEqual(o["arg"], "NAME[UNIT]=SOURCE:ARG")
                        cp = self.abev("help", c["name"], check=0)
                        self.assertIn("--metric NAME[UNIT]=SOURCE:ARG\n", cp.stdout)

    def test_unknown_option_names_the_nearest(self):
        for args, bad, near in [(("run", "p.json", "--dryrun"), "--dryrun", "--dry-run"),
                                (("bench", "--warmpu", "1", "a"), "--warmpu", "--warmup"),
                                (("bench", "--colr", "never", "a"), "--colr", "--color"),
                                (("export", "d", "-format", "csv"), "-format", "--format"),
                                (("results", "--lst", "f.xml"), "--lst", "--list"),
                                (("help", "plan", "--markdwn"), "--markdwn", "--markdown")]:
            cp = self.abev(*args, check=2)
            self.assertIn(f"unknown option '{bad}'", cp.stderr)
            self.assertIn(f"did you mean '{near}'?", cp.stderr)
        cp = self.abev("verify", "--frobnicate", "x", check=2)
        self.assertNotIn("did you mean", cp.stderr)
        # A misspelt command too, and help of one.
        for args, bad, near in [(("bnech", "true"), "bnech", "bench"),
                                (("verfy", "d"), "verfy", "verify"),
                                (("help", "gaurd"), "gaurd", "guard")]:
            cp = self.abev(*args, check=2)
            self.assertIn(f"unknown command '{bad}', did you mean '{near}'?", cp.stderr)
        cp = self.abev("zzzzzz", check=2)
        self.assertNotIn("did you mean", cp.stderr)


class Numbers(AbevTestCase):
    """A numeric option takes a decimal number only: strtod() alone would read
    '0x10' as 16 and strtoll() ' 16' as 16."""

    # The options whose value is read as a number outside the tables' int and
    # double kinds (cli_run.c's run_args_check).
    STRING_NUMBERS = {("run", "wait-max"), ("run", "max-load-wait"),
                      ("run", "max-cpu-wait-pct"), ("bench", "wait-max"),
                      ("bench", "max-load-wait"), ("bench", "max-cpu-wait-pct")}

    def args_for(self, cmd):
        """Arguments that let cmd reach the check of its options."""
        return {"run": ["run", "p.json", "--out", self.path("ev"), "--unsigned"],
                "bench": ["bench", "true", "--out", self.path("ev")],
                "init": ["init", "--out", self.path("p.json")],
                "results": ["results", "r.xml"]}.get(cmd, cmd.split() + ["x"])

    def test_numeric_options_take_decimal_only(self):
        seen = set()
        for c in load_tables():
            for o in c["options"]:
                if o["kind"] not in ("int", "double") and \
                        (c["name"], o["long"]) not in self.STRING_NUMBERS:
                    continue
                seen.add((c["name"], o["long"]))
                for bad in ("0x10", "0X1p4", " 16", "inf"):
                    with self.subTest(cmd=c["name"], opt=o["long"], value=bad):
                        cp = self.abev(*self.args_for(c["name"]), f"--{o['long']}", bad,
                                       check=2)
                        self.assertRegex(cp.stderr, rf"'--{o['long']}' must be a (whole )?"
                                                    "number")
                        self.assertFalse(os.path.exists(self.path("ev")))
        self.assertTrue(self.STRING_NUMBERS <= seen, self.STRING_NUMBERS - seen)
        # Decimal forms still read.
        cp = self.abev("bench", "true", "-r", "1", "--gap", "0.0", "--wait-max", "1e1",
                       "--max-cpu-wait-pct", "100.", "--out", self.path("ev"), check=None)
        self.assertIn(cp.returncode, (0, 1), cp.stderr)
