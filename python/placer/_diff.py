"""Diff: what `placer diff --json` reports (cli/cmd_diff.c), from the same
library call, placer_diff_measure (exact ranges, every value of a program's
key hash, or generated keys looked up in both), with placer_diff's ranges
where the snapshots have them, and the ideal, the least any placement must
move to give every node its new weight share."""
import ctypes

import numpy as np

from . import _lib
from ._errors import check, unsigned

METHODS = {_lib.DIFF_RANGES: "ranges", _lib.DIFF_HASHES: "hashes", _lib.DIFF_SAMPLED: "sampled"}


def _weight_shares(s):
    n = _lib.node_count(s)
    w = np.array([0.0 if _lib.node_state(s, i) == _lib.NODE_JOINING else _lib.node_weight(s, i)
                  for i in range(n)])
    total = w.sum()
    return w / total if total > 0 else w


def _ideal(a, b, ids_a, ids_b):
    wa, wb = _weight_shares(a), _weight_shares(b)
    index_a = {node: i for i, node in enumerate(ids_a)}
    gain = [wb[j] - (wa[index_a[node]] if node in index_a else 0.0) for j, node in enumerate(ids_b)]
    return float(sum(g for g in gain if g > 0))


class Diff:
    """What moves from one snapshot to another, as `placer diff --json`:
    moved (fraction of keys whose owner changes), method ("ranges" and
    "hashes": exact; "sampled": generated keys, sample_size of them, with
    interval95, Wilson's), exact, hash_values (the key hash values counted
    when "hashes"), ideal (the least any placement must move for the new
    weights), pairs ((from_id, to_id, share), largest first; None for a
    map's missing owner), ranges ((lo, hi, from_id, to_id) per moved range
    of the hash space, lo < hash <= hi, when placer_diff has them), nodes:
    per node id, the fraction it gives and receives ({"id", "gives",
    "receives"}, the old snapshot's nodes first, then those only in the new
    one), and for two snapshots of one bucket strategy, buckets: the
    fraction their buckets say should move ({"expected", "old", "new",
    "removed", "added", "reassigned"}, cli/diff_buckets.c has the model),
    else None."""

    def __init__(self, moved, method, ranges, ideal=0.0, nodes=(), pairs=(), sample_size=None,
                 interval95=None, hash_values=None, unplaced=0, buckets=None, replicas=None):
        self.moved, self.method, self.ranges = moved, method, ranges
        self.exact = method in ("ranges", "hashes")
        self.ideal, self.nodes, self.pairs = ideal, list(nodes), list(pairs)
        self.sample_size, self.interval95 = sample_size, interval95
        self.hash_values, self.unplaced = hash_values, unplaced
        self.buckets, self.replicas = buckets, replicas

    def as_dict(self, first_ranges=0, first_pairs=20):
        """The document `placer diff --json --ranges first_ranges --pairs
        first_pairs` prints."""
        doc = {"format": 1, "moved": self.moved, "ideal": self.ideal, "exact": self.exact,
               "method": self.method}
        if self.method == "hashes":
            doc["hash_values"] = self.hash_values
        if self.method == "sampled":
            doc["sample_size"] = self.sample_size
            doc["unplaced"] = self.unplaced
            doc["interval95"] = list(self.interval95)
        doc["ranges"] = len(self.ranges)
        if self.buckets is not None:
            doc["buckets"] = dict(self.buckets)
        doc["pair_count"] = len(self.pairs)
        doc["pairs"] = [{"from": f or "-", "to": t or "-", "share": x}
                        for (f, t, x) in self.pairs[:first_pairs]]
        doc["nodes"] = [dict(n) for n in self.nodes]
        doc["first_ranges"] = [{"lo": str(lo), "hi": str(hi), "from": f or "-", "to": t or "-"}
                               for (lo, hi, f, t) in self.ranges[:first_ranges]]
        if self.replicas is not None:
            doc["replicas"] = dict(self.replicas)
        return doc

    def __repr__(self):
        return "<placer.Diff moved %.6f (%s), ideal %.6f, %d pairs>" % (
            self.moved, self.method, self.ideal, len(self.pairs))


def _per_node(ids_a, ids_b, gives, receives):
    index_b = {node: j for j, node in enumerate(ids_b)}
    rows = [{"id": node, "gives": float(gives[i]),
             "receives": float(receives[index_b[node]]) if node in index_b else 0.0}
            for i, node in enumerate(ids_a)]
    known = set(ids_a)
    rows += [{"id": node, "gives": 0.0, "receives": float(receives[j])}
             for j, node in enumerate(ids_b) if node not in known]
    return rows


def _bucket_owners(s, ids):
    """{bucket: owner id} of a bucket strategy's snapshot."""
    t, o = ctypes.c_uint64(), ctypes.c_uint32()
    owners = {}
    for i in range(_lib.token_count(s)):
        if _lib.token_at(s, i, ctypes.byref(t), ctypes.byref(o)) == 0 and o.value < len(ids):
            owners[t.value] = ids[o.value]
    return owners


def _buckets(a, b, ids_a, ids_b):
    """What `placer diff --json` prints as "buckets" (cli/diff_buckets.c):
    with W_a buckets in use in a, W_b in b, S in both and R of those on
    another node in b, 1 - (S - R) S / (W_a W_b) of the keys should move.
    None unless a and b are snapshots of one bucket strategy."""
    st = _lib.snapshot_strategy(a)
    if st != _lib.snapshot_strategy(b) or not _lib.strategy_traits(st) & _lib.TRAIT_BUCKETS:
        return None
    x, y = _bucket_owners(a, ids_a), _bucket_owners(b, ids_b)
    both = x.keys() & y.keys()
    reassigned = sum(x[k] != y[k] for k in both)
    na, nb, s = len(x), len(y), len(both)
    expected = 1 - (s - reassigned) * s / (na * nb) if na and nb else float(na != nb)
    return {"expected": expected, "old": na, "new": nb, "removed": na - s, "added": nb - s,
            "reassigned": reassigned}


def _ranges(a, b, ids_a, ids_b):
    """placer_diff's moved ranges, or [] when the snapshots have none."""
    moves = ctypes.POINTER(_lib.Move)()
    count = ctypes.c_size_t()
    if _lib.diff(a, b, ctypes.byref(moves), ctypes.byref(count)):
        return []
    try:
        return [(m.lo, m.hi,
                 None if m.from_ == _lib.NO_NODE else ids_a[m.from_],
                 None if m.to == _lib.NO_NODE else ids_b[m.to])
                for m in (moves[i] for i in range(count.value))]
    finally:
        _lib.moves_free(moves)


def _replicas(a, b, ids_a, ids_b, replicas, keys):
    """`placer diff --replicas R --json`'s "replicas" object."""
    r = _lib.DiffReport(size=ctypes.sizeof(_lib.DiffReport))
    check(_lib.diff_replicas(a, b, unsigned("replicas", replicas, 32), keys, ctypes.byref(r)))
    try:
        loses = [r.gives[i] for i in range(len(ids_a))]
        receives = [r.receives[j] for j in range(len(ids_b))]
        rows = [{"id": n["id"], "loses": n["gives"], "receives": n["receives"]}
                for n in _per_node(ids_a, ids_b, loses, receives)]
        return {"size": replicas, "changed": r.moved, "sample_size": r.keys,
                "unplaced": r.unplaced, "interval95": [r.low95, r.high95], "nodes": rows}
    finally:
        _lib.diff_report_release(ctypes.byref(r))


def diff_snapshots(a, b, ids_a, ids_b, samples=None, replicas=None):
    r = _lib.DiffReport(size=ctypes.sizeof(_lib.DiffReport))
    keys = 0 if samples is None else unsigned("samples", samples, 64)
    if samples is not None and keys < 1:
        raise ValueError("samples must be at least 1")
    check(_lib.diff_measure(a, b, keys, _lib.DIFF_FORCE_SAMPLE if samples else 0, ctypes.byref(r)))
    try:
        method = METHODS[r.method]
        gives = [r.gives[i] for i in range(len(ids_a))]
        receives = [r.receives[j] for j in range(len(ids_b))]
        pairs = [(None if p.from_ == _lib.NO_NODE else ids_a[p.from_],
                  None if p.to == _lib.NO_NODE else ids_b[p.to], p.share)
                 for p in (r.pairs[k] for k in range(r.npairs))]
        moved, sampled = r.moved, (r.keys, r.unplaced, (r.low95, r.high95), r.hash_values)
    finally:
        _lib.diff_report_release(ctypes.byref(r))
    ranges = [] if samples else _ranges(a, b, ids_a, ids_b)
    return Diff(moved, method, ranges, _ideal(a, b, ids_a, ids_b),
                _per_node(ids_a, ids_b, gives, receives), pairs,
                sample_size=sampled[0] if method == "sampled" else None,
                interval95=sampled[2] if method == "sampled" else None,
                hash_values=sampled[3] if method == "hashes" else None, unplaced=sampled[1],
                buckets=_buckets(a, b, ids_a, ids_b),
                replicas=None if replicas is None else _replicas(a, b, ids_a, ids_b, replicas, keys))
