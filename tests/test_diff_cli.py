#!/usr/bin/env python3
"""test_diff_cli.py -- `placer diff` as an operator reads it: the method
on the first line (exact ranges, every hash value, or sampled keys with an
interval), the from -> to pairs largest first, every node in the text as in
the JSON, and with --key-file the figures of those keys, exact, and
--moved-keys writing each moving key with its old and new owner, escaped
as `placer lookup` escapes keys (JSON lines: "key" or "key_base64"),
--replicas R what each node receives for its new replica sets. Every
figure is checked against `placer lookup` of the same keys in both
snapshots, including the modulo tables whose positions alias (twemproxy
modula 2 -> 3 servers moves 2/3 of keys) and a real Couchbase bucket
config losing a node.

Usage: test_diff_cli.py PATH/TO/placer PATH/TO/couchbase-config.json.
Exit 0 or 1.
"""
import base64
import json
import os
import subprocess
import sys
import tempfile

FAILED = 0


def check(ok, what):
    global FAILED
    print(("ok   " if ok else "FAILED: ") + what, file=sys.stdout if ok else sys.stderr)
    FAILED += not ok


def run(placer, *args, stdin=None, rc=0):
    r = subprocess.run([placer] + list(args), input=stdin, capture_output=True, timeout=120)
    if r.returncode != rc:
        raise RuntimeError("placer %s: exit %d: %s" % (" ".join(args), r.returncode, r.stderr.decode()))
    return r.stdout.decode()


def owners(placer, snap, path):
    with open(path, "rb") as f:
        out = run(placer, "lookup", snap, "--json", stdin=f.read())
    return [json.loads(line)["owner"] for line in out.splitlines()]


def write_keys(path, keys):
    with open(path, "wb") as f:
        f.write(b"".join(k + b"\n" for k in keys))


def by_lookups(placer, a, b, path):
    x, y = owners(placer, a, path), owners(placer, b, path)
    return x, y, sum(p != q for p, q in zip(x, y)) / len(x)


def main():
    placer, couchbase = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory(prefix="placer-diff-") as tmp:
        p = lambda n: os.path.join(tmp, n)

        def build(name, doc):
            with open(p(name + ".json"), "w") as f:
                json.dump(doc, f)
            run(placer, "build", p(name + ".json"), "-o", p(name + ".snap"))
            return p(name + ".snap")

        # The modulo tables: exact by residues, and what lookups say.
        gen = [b"user:%d" % (i * 7919) for i in range(20000)]
        img = [b"/img/%d.png" % i for i in range(20000)]
        write_keys(p("gen.txt"), gen)
        write_keys(p("img.txt"), img)
        for mode, dist, want in (("twemproxy", "modula", 2 / 3), ("haproxy", "map-based", 2 / 3),
                                 ("nginx", "hash", 2 / 3)):
            nodes = [{"id": "s%d" % i, "address": "10.0.0.%d:80" % i} for i in range(3)]
            a = build(mode + "2", {"compat": mode, "distribution": dist, "nodes": nodes[:2]})
            b = build(mode + "3", {"compat": mode, "distribution": dist, "nodes": nodes})
            d = json.loads(run(placer, "diff", a, b, "--json"))
            check(d["method"] == "hashes" and d["exact"] and abs(d["moved"] - want) < 1e-4,
                  "%s %s 2 -> 3: exact %.6f (%s)" % (mode, dist, d["moved"], d["method"]))
            for keys in ("gen.txt", "img.txt"):
                _, _, f = by_lookups(placer, a, b, p(keys))
                check(abs(f - d["moved"]) < 0.01, "%s %s: %s by lookups %.4f, diff %.4f"
                      % (mode, dist, keys, f, d["moved"]))
            text = run(placer, "diff", a, b)
            check(text.startswith("moved: %.4f%% of keys (exact: all %d values of the key hash counted)"
                                  % (100 * d["moved"], d["hash_values"])), "%s: text says how: %s"
                  % (mode, text.splitlines()[0]))

        # Text and JSON: pairs largest first, every node (one that neither
        # gives nor receives too), the matrix when small.
        ring = [{"id": c} for c in "abcd"]
        r1 = build("r1", {"tokens": "balanced", "nodes": ring})
        r2 = build("r2", {"tokens": "balanced", "nodes": ring[:3] + [{"id": "e"}]})
        d = json.loads(run(placer, "diff", r1, r2, "--json"))
        shares = [x["share"] for x in d["pairs"]]
        check(d["method"] == "ranges" and shares == sorted(shares, reverse=True)
              and all(x["from"] == "d" and x["to"] == "e" for x in d["pairs"])
              and abs(sum(shares) - d["moved"]) < 1e-9, "ring: pairs d -> e, largest first")
        text = run(placer, "diff", r1, r2)
        rows = [l.split()[0] for l in text.splitlines()[text.splitlines().index(
            next(l for l in text.splitlines() if l.startswith("node "))) + 1:]]
        check(rows[:5] == ["a", "b", "c", "d", "e"], "text lists every node: %s" % rows[:5])
        check("from \\ to (share of keys)" in text and "  d -> e " in text,
              "text prints the pairs and the matrix")
        check([n["id"] for n in d["nodes"]] == ["a", "b", "c", "d", "e"], "JSON lists every node")

        # --replicas R: per node, what its new replica sets make it receive.
        d = json.loads(run(placer, "diff", r1, r2, "--json", "--replicas", "2"))
        rep = d["replicas"]
        check(rep["size"] == 2 and rep["sample_size"] == 100000
              and [n["id"] for n in rep["nodes"]] == ["a", "b", "c", "d", "e"]
              and rep["nodes"][4]["loses"] == 0 and rep["nodes"][3]["receives"] == 0
              and rep["nodes"][4]["receives"] == rep["nodes"][3]["loses"]
              and abs(rep["nodes"][4]["receives"] - 0.5) < 0.05,
              "--replicas 2: e takes d's place in about half the sets: %s" % rep["nodes"])
        text = run(placer, "diff", r1, r2, "--replicas", "2")
        check("replica sets of 2: %.4f%% of keys change members" % (100 * rep["changed"]) in text,
              "--replicas 2 in text")
        run(placer, "diff", r1, r2, "--replicas", "0", rc=1)

        # Key files: exact for those keys, the moved keys written.
        tw = build("tw", {"compat": "twemproxy", "nodes": [{"id": "a"}, {"id": "b", "weight": 2}, {"id": "c"}]})
        hap = build("hap", {"compat": "haproxy", "nodes": [{"id": "a"}, {"id": "b", "weight": 2}, {"id": "c"}]})
        odd = [b"user:%d" % i for i in range(3000)] + [b"tab\there", b"back\\slash", b"\xff\xfebin"]
        write_keys(p("keys.txt"), odd)
        for other in (r1, hap):
            what = "tw.snap -> " + os.path.basename(other)
            x, y, f = by_lookups(placer, tw, other, p("keys.txt"))
            d = json.loads(run(placer, "diff", tw, other, "--key-file", p("keys.txt"), "--json",
                               "--moved-keys", p("moved.jsonl")))
            check(d["method"] == "key_file" and d["sample_size"] == len(odd) and d["moved"] == f,
                  "%s: %d keys, moved %.6f (lookups %.6f)" % (what, d["sample_size"], d["moved"], f))
            for n in d["nodes"]:
                gives = sum(u == n["id"] and v != u for u, v in zip(x, y)) / len(x)
                gets = sum(v == n["id"] and v != u for u, v in zip(x, y)) / len(x)
                check(abs(n["gives"] - gives) < 1e-12 and abs(n["receives"] - gets) < 1e-12,
                      "%s: node %s gives %.4f receives %.4f" % (what, n["id"], gives, gets))
            want = [(k, u, v) for k, u, v in zip(odd, x, y) if u != v]
            lines = [json.loads(l) for l in open(p("moved.jsonl"))]
            got = [(l["key"].encode() if "key" in l else base64.b64decode(l["key_base64"]),
                    l["from"], l["to"]) for l in lines]
            check(got == want, "%s: --moved-keys --json: %d keys, owners as lookups" % (what, len(want)))
            run(placer, "diff", tw, other, "--key-file", p("keys.txt"), "--moved-keys", p("moved.txt"))
            esc = lambda k: k.replace(b"\\", b"\\\\").replace(b"\t", b"\\x09")  # control bytes only
            want_text = b"".join(esc(k) + b"\t" + u.encode() + b"\t" + v.encode() + b"\n" for k, u, v in want)
            with open(p("moved.txt"), "rb") as f:
                check(f.read() == want_text, "%s: --moved-keys text, escaped as lookup escapes" % what)
            text = run(placer, "diff", tw, other, "--key-file", p("keys.txt"))
            check(text.startswith("moved: %.4f%% of the %d keys of " % (100 * d["moved"], len(odd))),
                  what + ": text says the same: " + text.splitlines()[0])

        # Sampled by keys: stated, the same keys every run, --sample N.
        g1 = json.loads(run(placer, "diff", tw, r1, "--json"))
        g2 = json.loads(run(placer, "diff", tw, r1, "--json"))
        lo, hi = g1["interval95"]
        check(g1["method"] == "sampled" and g1["sample_size"] == 100000 and g1 == g2
              and lo <= g1["moved"] <= hi and hi - lo < 0.01,
              "different hashes: 100,000 generated keys, the same each run, interval %.4f .. %.4f" % (lo, hi))
        g3 = json.loads(run(placer, "diff", hap, hap, "--json", "--sample", "5000"))
        check(g3["sample_size"] == 5000 and g3["moved"] == 0 and g3["pairs"] == [], "--sample 5000, itself")
        run(placer, "diff", tw, r1, "--sample", "0", rc=1)
        run(placer, "diff", tw, r1, "--sample", "5", "--key-file", p("keys.txt"), rc=1)
        run(placer, "diff", tw, r1, "--moved-keys", p("x"), rc=1)
        before = open(p("keys.txt"), "rb").read()
        run(placer, "diff", tw, r1, "--key-file", p("keys.txt"), "--moved-keys", p("keys.txt"), rc=1)
        check(open(p("keys.txt"), "rb").read() == before, "--moved-keys never writes over its key file")
        with open(p("empty.txt"), "w"):
            pass
        run(placer, "diff", tw, r1, "--key-file", p("empty.txt"), rc=2)

        # A real Couchbase bucket config, one node gone: every vBucket
        # hash value counted, against lookups.
        run(placer, "import-couchbase", couchbase, "-o", p("cb.snap"))
        with open(couchbase) as f:
            cfg = json.load(f)
        gone = cfg["vBucketServerMap"]["serverList"][0]
        info = json.loads(run(placer, "stats", p("cb.snap"), "--json"))
        nodes = [n["id"] for n in info["nodes"]]
        m = {"strategy": "partitions", "key_hash": "couchbase",
             "partitions": len(cfg["vBucketServerMap"]["vBucketMap"]),
             "nodes": [{"id": n} for n in nodes if n != gone]}
        cb2 = build("cb2", m)
        d = json.loads(run(placer, "diff", p("cb.snap"), cb2, "--json"))
        _, _, f = by_lookups(placer, p("cb.snap"), cb2, p("gen.txt"))
        check(d["method"] == "hashes" and d["hash_values"] == 32768 and abs(d["moved"] - f) < 0.01,
              "couchbase: exact over 32768 hash values %.4f, lookups %.4f" % (d["moved"], f))
    print("test_diff_cli: %s" % ("failed" if FAILED else "passed"))
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
