#!/usr/bin/env python3
"""tests/test_file_cycles.py NM LIBRARY.a -- the files of libplacer form a
DAG: the file-level call graph, derived from the static library's objects
(object A depends on object B when A's undefined symbols include one that B
defines, `nm`), has no cycle. A cycle is named with the files on it, e.g.
"builder.c -> strategies.c -> strategy_ring.c -> builder.c", so that the
call that closes it can be moved (docs/ARCHITECTURE.md, "Layers").

Before the library, the check runs on a made-up graph with one cycle and
must find it: so it can fail.
"""
import re
import subprocess
import sys


def graph_of(nm, lib):
    """{object: set of objects it calls into} from `nm` of an archive."""
    out = subprocess.run([nm, "-A", lib], check=True, capture_output=True, text=True).stdout
    defined, undefined = {}, {}
    for line in out.splitlines():
        # "lib.a:obj.o: 0000 T name" or "lib.a:obj.o:          U name"
        m = re.match(r"^[^:]*:([^:]+):\s*(?:[0-9a-fA-F]+\s+)?([A-Za-z])\s+(\S+)$", line)
        if not m:
            continue
        obj, kind, sym = m.groups()
        obj = re.sub(r"\.o(bj)?$", "", obj)
        undefined.setdefault(obj, set())
        if kind == "U":
            undefined[obj].add(sym)
        elif kind.isupper() or kind in "vw":
            defined.setdefault(sym, obj)
    return {o: {defined[s] for s in syms if s in defined and defined[s] != o}
            for o, syms in undefined.items()}


def cycles(graph):
    """One cycle (a list of nodes, first repeated last) per strongly
    connected component of more than one node (Tarjan)."""
    index, low, stack, on, comps = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    found = []
    for comp in comps:
        members = set(comp)
        # a shortest path back to the start inside the component
        start = comp[0]
        prev, frontier, seen = {}, [start], {start}
        path = None
        while frontier and not path:
            nxt = []
            for v in frontier:
                for w in sorted(graph[v] & members):
                    if w == start:
                        path = [start]
                        x = v
                        while x != start:
                            path.append(x)
                            x = prev[x]
                        path = [start] + path[1:][::-1] + [start]
                        break
                    if w not in seen:
                        seen.add(w)
                        prev[w] = v
                        nxt.append(w)
                if path:
                    break
            frontier = nxt
        found.append((comp, path))
    return found


def name(obj):
    # meson names an object after its folder and file: core_builder.c
    return obj


def main():
    made_up = {"a.c": {"b.c"}, "b.c": {"c.c"}, "c.c": {"a.c"}, "d.c": {"a.c"}}
    got = cycles(made_up)
    if [p for _, p in got] != [["a.c", "b.c", "c.c", "a.c"]]:
        print("FAIL: the check itself: a -> b -> c -> a not found, got %r" % got)
        return 1
    nm, lib = sys.argv[1], sys.argv[2]
    graph = graph_of(nm, lib)
    if len(graph) < 20:
        print("FAIL: only %d objects read from %s" % (len(graph), lib))
        return 1
    found = cycles(graph)
    for comp, path in found:
        print("FAIL: a cycle of %d files: %s" % (len(comp), " -> ".join(map(name, path))))
        print("      all of them: %s" % ", ".join(map(name, comp)))
    if found:
        return 1
    edges = sum(len(v) for v in graph.values())
    print("test_file_cycles: %d files, %d calls between them, no cycle" % (len(graph), edges))
    return 0


if __name__ == "__main__":
    sys.exit(main())
