"""Files made from what abev prints (docs/*.md, the shell completions):
written by `make docs` and `make completions`, and compared without being
written by their --check (the tests), which shows a diff of each stale one."""
import difflib
import os
import sys


def parse_args(doc, default_dir):
    """(check, abev, out_dir) from the command line: [--check] ABEV [DIR]."""
    args = sys.argv[1:]
    check = bool(args) and args[0] == "--check"
    if check:
        args = args[1:]
    if not args:
        sys.exit(doc)
    out_dir = args[1] if len(args) > 1 else os.path.join(
        os.path.dirname(os.path.dirname(os.path.abspath(__file__))), default_dir)
    return check, args[0], out_dir


def write_or_check(files, out_dir, check, source, stale_message):
    """Writes each name: text of files into out_dir, or with check compares
    them, prints a diff of each that differs (labelled source) and exits 1
    with stale_message (formatted with the count) when any did."""
    stale = 0
    for name, text in files.items():
        path = os.path.join(out_dir, name)
        if not check:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            continue
        try:
            with open(path, encoding="utf-8") as f:
                have = f.read()
        except FileNotFoundError:
            have = ""
        if have != text:
            stale += 1
            sys.stdout.writelines(difflib.unified_diff(
                have.splitlines(True), text.splitlines(True), path, source))
    if stale:
        print(stale_message.format(stale))
        sys.exit(1)
