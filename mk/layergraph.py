"""Reads mk/layers: abev's source folders and the folders each may use.

mk/layers holds one line per folder, bottom first:

    orchestrator/run: util record plan measure

The folder before the colon may include the headers of, and reference the
symbols of, itself and the folders after it; nothing else. The folders
after the colon are named by their last component (util for
orchestrator/util) or in full, and each must be declared on an earlier
line, so the file is its own topological order and the graph has no
cycle. A line without a colon uses no other folder. Shared by
check-layers.py (include lines), check-symbols.py (what the objects
reference) and check-names.py (file names).
"""
import os


class LayersError(Exception):
    """mk/layers itself is malformed: the message names the line."""


def read(root):
    """(order, uses): the folders bottom first, and {folder: set of folders it may use}."""
    path = os.path.join(root, 'mk', 'layers')
    order, uses, short = [], {}, {}
    with open(path) as f:
        for lineno, raw in enumerate(f, 1):
            line = raw.split('#', 1)[0].strip()
            if not line:
                continue
            name, _, rest = line.partition(':')
            name = name.strip()
            if name in uses:
                raise LayersError('mk/layers:%d: %s is declared twice' % (lineno, name))
            deps = set()
            for dep in rest.split():
                full = short.get(dep, dep if dep in uses else None)
                if full is None:
                    raise LayersError('mk/layers:%d: %s uses %s, which no earlier line declares'
                                      % (lineno, name, dep))
                if full in deps:
                    raise LayersError('mk/layers:%d: %s names %s twice' % (lineno, name, dep))
                deps.add(full)
            base = os.path.basename(name)
            if base in short:
                raise LayersError('mk/layers:%d: %s and %s share the short name %s'
                                  % (lineno, short[base], name, base))
            short[base] = name
            order.append(name)
            uses[name] = deps
    return order, uses
