"""The import graph of the apps has no cycles, counting imports inside functions too.

grimp (import-linter's graph builder) reads every ``import`` statement, also the ones in function
bodies — a function-level import hides a cycle from Python at import time, not from the design
(issue 12: ``privacy.services → enqueue → privacy.tasks → privacy.services``). The direction rules
themselves are import-linter contracts in ``pyproject.toml`` (``lint-imports``).
"""

from __future__ import annotations

import grimp

PACKAGES = ("dpcore", "accounts", "surveys", "privacy", "deniable", "audit")

# Cycles that exist today in code another change owns. Empty since the read side was split and
# the batch size and unsealed count became selectors (issue 12 §4): a selector never imports a
# service. The test fails as soon as a listed cycle is broken up, so the list only shrinks.
KNOWN_CYCLES: list[list[str]] = []


def _strongly_connected(graph: grimp.ImportGraph) -> list[list[str]]:
    """Tarjan's algorithm over the module graph (iterative: the graph has hundreds of nodes)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []
    edges = {m: sorted(graph.find_modules_directly_imported_by(m)) for m in graph.modules}
    counter = 0
    for root in sorted(graph.modules):
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            node, i = work.pop()
            if i == 0:
                index[node] = low[node] = counter
                counter += 1
                stack.append(node)
                on_stack.add(node)
            successors = [s for s in edges[node] if s in edges]
            if i < len(successors):
                work.append((node, i + 1))
                nxt = successors[i]
                if nxt not in index:
                    work.append((nxt, 0))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                components.append(sorted(component))
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    return components


def test_no_import_cycles_between_modules() -> None:
    graph = grimp.build_graph(*PACKAGES, cache_dir=None)
    cycles = [c for c in _strongly_connected(graph) if len(c) > 1]
    assert all(known in cycles for known in KNOWN_CYCLES), "a known cycle is gone: drop it"
    cycles = [c for c in cycles if c not in KNOWN_CYCLES]
    self_loops = [m for m in graph.modules if m in graph.find_modules_directly_imported_by(m)]
    assert not self_loops, self_loops
    details = [
        [
            f"{a} -> {b} (line {d['line_number']})"
            for a in c
            for b in graph.find_modules_directly_imported_by(a)
            if b in c
            for d in graph.get_import_details(importer=a, imported=b)
        ]
        for c in cycles
    ]
    assert cycles == [], details


def test_the_hidden_release_cycle_is_gone() -> None:
    graph = grimp.build_graph(*PACKAGES, cache_dir=None)
    assert not graph.chain_exists(importer="privacy.services", imported="privacy.tasks")
    assert graph.chain_exists(importer="privacy.tasks", imported="privacy.services")
