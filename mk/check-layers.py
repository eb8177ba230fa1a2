#!/usr/bin/env python3
"""Holds abev's include lines to the folder graph declared in mk/layers.

Usage: check-layers.py [ROOT]   (ROOT: the checkout, default: this script's parent's parent)

Every C file and header in a declared folder is read. Each
`#include "FOLDER/NAME.h"` (or `<FOLDER/NAME.h>`, itself refused: abev's
headers are included with quotes, system headers with <>) must name the
including file's own folder or one its line of mk/layers declares, and
the header must exist; a project header included without its folder
("proc.h") is refused too, since the line would not show what it crosses
into. An edge mk/layers declares that no include line uses is refused
(the graph says what the code does, no more). A source file in a folder
mk/layers does not declare is refused, and so is a file that sets a
feature-test macro (_GNU_SOURCE, ...) of its own: the Makefile's FEATURES
is the one setting for the whole build. On success it prints one line per
folder with the folders it includes; on failure, one line per offence,
"FILE:LINE: ...", and exits 1. mk/layers lists a folder only after those
it uses (mk/layergraph.py refuses it otherwise), so the graph has no
cycle; the include lines are checked for one all the same.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import layergraph  # noqa: E402

INCLUDE = re.compile(r'^\s*#\s*include\s*(?:"([^"]+)"|<([^>]+)>)')
FEATURE = re.compile(r'^\s*#\s*(define|undef)\s+(_[A-Z_]*_SOURCE|_GNU_SOURCE)\b')


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    try:
        order, uses = layergraph.read(root)
    except layergraph.LayersError as e:
        print(e)
        return 1
    rank = {d: i for i, d in enumerate(order)}
    # Include names are relative to an include root: orchestrator/ or the top (guards/).
    def folder_of_include(name):
        for cand in ('orchestrator/' + name, name):
            d = os.path.dirname(cand)
            if d in rank:
                return d, cand
        return None, None

    errors = []
    headers = {}
    for d in order:
        p = os.path.join(root, d)
        if not os.path.isdir(p):
            errors.append('mk/layers: %s: no such folder' % d)
            continue
        for f in os.listdir(p):
            if f.endswith('.h'):
                headers.setdefault(f, []).append(d)
    for top in ('orchestrator',):
        for d in sorted(os.listdir(os.path.join(root, top))):
            full = top + '/' + d
            if os.path.isdir(os.path.join(root, full)) and full not in rank:
                if any(x.endswith(('.c', '.h')) for x in os.listdir(os.path.join(root, full))):
                    errors.append('%s/: a source folder mk/layers does not place' % full)

    edges = {}
    for d in order:
        p = os.path.join(root, d)
        if not os.path.isdir(p):
            continue
        for f in sorted(os.listdir(p)):
            if not f.endswith(('.c', '.h')):
                continue
            rel = d + '/' + f
            with open(os.path.join(p, f), errors='replace') as fh:
                for lineno, line in enumerate(fh, 1):
                    if FEATURE.match(line):
                        errors.append('%s:%d: a feature-test macro of its own: the Makefile\'s FEATURES is the one setting'
                                      % (rel, lineno))
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    name = m.group(1) or m.group(2)
                    if m.group(2):
                        # <...>: a system header, unless it names one of abev's
                        # folders (-I puts them on the search path too).
                        if folder_of_include(name)[0] is None:
                            continue
                        errors.append('%s:%d: <%s> is abev\'s own header: write "%s"'
                                      % (rel, lineno, name, name))
                    if '/' not in name:
                        if name in headers:
                            errors.append('%s:%d: "%s" names no folder: write "%s/%s"'
                                          % (rel, lineno, name, headers[name][0].replace('orchestrator/', ''), name))
                        continue
                    target, path = folder_of_include(name)
                    if target is None:
                        errors.append('%s:%d: "%s" is in no folder of mk/layers' % (rel, lineno, name))
                        continue
                    if not os.path.isfile(os.path.join(root, path)):
                        errors.append('%s:%d: "%s": no such header' % (rel, lineno, name))
                        continue
                    if target == d:
                        continue
                    edges.setdefault(d, set()).add(target)
                    if rank[target] > rank[d]:
                        errors.append('%s:%d: includes "%s": %s comes after %s in mk/layers (a folder includes only itself and those before it)'
                                      % (rel, lineno, name, target, d))
                    elif target not in uses[d]:
                        errors.append('%s:%d: includes "%s": mk/layers does not let %s use %s (add it to %s\'s line if the edge is meant)'
                                      % (rel, lineno, name, d, target, d))
    for d in order:
        for t in sorted(uses[d] - edges.get(d, set()), key=lambda x: rank[x]):
            errors.append('mk/layers: %s declares %s, but no include line of %s uses it: remove the edge'
                          % (d, t, d))
    cycle = find_cycle(order, edges)
    if cycle:
        errors.append('folder include cycle: ' + ' -> '.join(cycle))
    if errors:
        for e in errors:
            print(e)
        print('check-layers: %d offence(s) against mk/layers' % len(errors))
        return 1
    for d in order:
        below = sorted(edges.get(d, ()), key=lambda x: rank[x])
        print('%-24s %s' % (d, ' '.join(below) if below else '-'))
    print('check-layers: %d folders, %d declared edges, no upward or undeclared include, no cycle'
          % (len(order), sum(len(u) for u in uses.values())))
    return 0


def find_cycle(nodes, edges):
    state = {}
    stack = []

    def visit(n):
        state[n] = 1
        stack.append(n)
        for t in sorted(edges.get(n, ())):
            if state.get(t) == 1:
                return stack[stack.index(t):] + [t]
            if not state.get(t):
                c = visit(t)
                if c:
                    return c
        stack.pop()
        state[n] = 2
        return None

    for n in nodes:
        if not state.get(n):
            c = visit(n)
            if c:
                return c
    return None


if __name__ == '__main__':
    sys.exit(main())
