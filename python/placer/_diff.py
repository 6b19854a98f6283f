"""Diff: what `placer diff --json` reports (cli/cmd_diff.c), computed the
same way: exact ranges where the strategy has them (placer_diff,
placer_moves_shares), else measured at evenly spaced hash positions (one
placer_lookup_hash_batch per snapshot), and the ideal, the least any
placement must move to give every node its new weight share."""
import ctypes
import math

import numpy as np

from . import _lib
from ._errors import check, unsigned

SAMPLE_BUDGET = float(1 << 24)  # as cli/cli.h: node scorings a measurement may cost
SAMPLE_LEAST = 64


def sample_size(a, b, most=1 << 20):
    """cli_sample_size: 2^20 positions, halved while a strategy whose
    lookups score every node (the registry's PLACER_TRAIT_SCANS_NODES:
    rendezvous) would score more than 2^24 nodes in all."""
    def cost(s):
        scans = _lib.strategy_traits(_lib.snapshot_strategy(s)) & _lib.TRAIT_SCANS_NODES
        return _lib.node_count(s) + 64.0 if scans else 64.0
    fit = SAMPLE_BUDGET / (cost(a) + cost(b))
    n = most
    while n > SAMPLE_LEAST and n > fit:
        n >>= 1
    return n


def confidence95(p, n):
    w = 1.959964 * math.sqrt(p * (1 - p) / n)
    return w if w > 1.0 / n else 1.0 / n


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
    moved (fraction of keys whose owner changes), ideal (the least any
    placement must move for the new weights), exact (True: from ranges;
    False: measured at sample_size positions, +/- confidence95), ranges
    ((lo, hi, from_id, to_id) per moved range of the hash space,
    lo < hash <= hi; empty when measured), and nodes: per node id, the
    fraction it gives and receives ({"id", "gives", "receives"}, the old
    snapshot's nodes first, then those only in the new one), and for two
    snapshots of one bucket strategy, buckets: the fraction their buckets
    say should move ({"expected", "old", "new", "removed", "added",
    "reassigned"}, cli/diff_buckets.c has the model), else None."""

    def __init__(self, moved, exact, ranges, ideal=0.0, nodes=(), sample_size=None,
                 confidence95=None, buckets=None):
        self.moved, self.exact, self.ranges = moved, exact, ranges
        self.ideal, self.nodes = ideal, list(nodes)
        self.sample_size, self.confidence95 = sample_size, confidence95
        self.buckets = buckets

    def as_dict(self, first_ranges=0):
        """The document `placer diff --json --ranges first_ranges` prints."""
        doc = {"format": 1, "moved": self.moved, "ideal": self.ideal, "exact": self.exact}
        if not self.exact:
            doc["sample_size"] = self.sample_size
            doc["confidence95"] = self.confidence95
        doc["ranges"] = len(self.ranges)
        if self.buckets is not None:
            doc["buckets"] = dict(self.buckets)
        doc["nodes"] = [dict(n) for n in self.nodes]
        doc["first_ranges"] = [{"lo": str(lo), "hi": str(hi), "from": f or "-", "to": t or "-"}
                               for (lo, hi, f, t) in self.ranges[:first_ranges]]
        return doc

    def __repr__(self):
        return "<placer.Diff moved %.6f (%s), ideal %.6f, %d ranges>" % (
            self.moved, "exact" if self.exact else "measured", self.ideal, len(self.ranges))


def _per_node(ids_a, ids_b, gives, receives):
    index_b = {node: j for j, node in enumerate(ids_b)}
    rows = [{"id": node, "gives": float(gives[i]),
             "receives": float(receives[index_b[node]]) if node in index_b else 0.0}
            for i, node in enumerate(ids_a)]
    known = set(ids_a)
    rows += [{"id": node, "gives": 0.0, "receives": float(receives[j])}
             for j, node in enumerate(ids_b) if node not in known]
    return rows


def _measured(a, b, ids_a, ids_b, samples):
    step = (1 << 64) // samples  # samples is a power of two
    pos = np.arange(samples, dtype=np.uint64) * np.uint64(step) + np.uint64(step // 2)
    oa, ob = np.empty(samples, np.uint32), np.empty(samples, np.uint32)
    check(_lib.lookup_hash_batch(a, pos.ctypes.data, samples, oa.ctypes.data))
    check(_lib.lookup_hash_batch(b, pos.ctypes.data, samples, ob.ctypes.data))
    live = (oa != _lib.NO_NODE) & (ob != _lib.NO_NODE)
    # node ids compared through one numbering: b's indices mapped to a's
    index_a = {node: i for i, node in enumerate(ids_a)}
    b_to_a = np.array([index_a.get(node, -1) for node in ids_b], dtype=np.int64)
    moved_mask = live & (b_to_a[np.where(live, ob, 0)] != oa.astype(np.int64))
    gives = np.bincount(oa[moved_mask], minlength=len(ids_a)) / samples
    receives = np.bincount(ob[moved_mask], minlength=len(ids_b)) / samples
    return float(moved_mask.sum()) / samples, gives, receives


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


def diff_snapshots(a, b, ids_a, ids_b, samples=None):
    moves = ctypes.POINTER(_lib.Move)()
    count = ctypes.c_size_t()
    err = _lib.diff(a, b, ctypes.byref(moves), ctypes.byref(count))
    ideal = _ideal(a, b, ids_a, ids_b)
    if err == _lib.ENOTSUP:  # jump and rendezvous have no ranges: measured
        n = sample_size(a, b) if samples is None else unsigned("samples", samples, 32)
        if n < 1:
            raise ValueError("samples must be at least 1")
        if n & (n - 1):
            raise ValueError("samples must be a power of two (evenly spaced positions)")
        moved, gives, receives = _measured(a, b, ids_a, ids_b, n)
        return Diff(moved, False, [], ideal, _per_node(ids_a, ids_b, gives, receives), n,
                    confidence95(moved, n), _buckets(a, b, ids_a, ids_b))
    check(err)
    try:
        frac = _lib.moves_fraction(moves, count.value)
        gives = np.zeros(len(ids_a))
        receives = np.zeros(len(ids_b))
        check(_lib.moves_shares(a, b, moves, count.value, gives.ctypes.data, receives.ctypes.data))
        ranges = [(m.lo, m.hi,
                   None if m.from_ == _lib.NO_NODE else ids_a[m.from_],
                   None if m.to == _lib.NO_NODE else ids_b[m.to])
                  for m in (moves[i] for i in range(count.value))]
    finally:
        _lib.moves_free(moves)
    return Diff(frac, True, ranges, ideal, _per_node(ids_a, ids_b, gives, receives))
