#!/usr/bin/env python3
"""tests/test_compare.py SOURCE_ROOT [BUILD_ROOT] -- bench/compare's
statistics against hand-checked values, its verdicts on synthetic rounds,
and (with BUILD_ROOT) a smoke run of the tool on one small benchmark of that
build against itself: the table, the JSON and the exit codes. Three rounds
cannot reach significance (the exact test's smallest p-value is 0.25), so
the smoke's verdict does not depend on the machine's noise."""
import importlib.machinery
import importlib.util
import json
import math
import os
import subprocess
import sys
import tempfile

root = sys.argv[1]
tool = os.path.join(root, "bench", "compare")
loader = importlib.machinery.SourceFileLoader("compare", tool)
spec = importlib.util.spec_from_loader("compare", loader)
cmp = importlib.util.module_from_spec(spec)
loader.exec_module(cmp)
failed = 0


def check(what, ok):
    global failed
    print(("ok   " if ok else "FAIL ") + what)
    failed += not ok


def near(x, y, tol=1e-9):
    return abs(x - y) <= tol * max(1.0, abs(y))


# Wilcoxon signed-rank, exact: all 10 differences positive -> 2/2^10; the
# mixed case has negative ranks 1 and 2 (W- = 3), and of the 256 sign
# patterns of ranks 1..8, 5 sum to 3 or less: p = 2 x 5/256.
check("wilcoxon all positive", near(cmp.wilcoxon_p([0.1 * i for i in range(1, 11)]), 2 / 1024))
check("wilcoxon mixed", near(cmp.wilcoxon_p([1.1, -0.2, 0.5, 0.9, 1.4, -0.3, 0.8, 0.7]), 10 / 256))
check("wilcoxon symmetric", near(cmp.wilcoxon_p([1, -1, 2, -2, 3, -3]), 1.0))
check("wilcoxon zeros only", cmp.wilcoxon_p([0, 0, 0]) == 1.0)
# Holm: sorted 0.01, 0.02, 0.04 over 3 -> 0.03, 0.04, 0.04.
adj = cmp.holm([0.04, 0.01, 0.02])
check("holm", all(near(a, b) for a, b in zip(adj, [0.04, 0.03, 0.04])))
# Hodges-Lehmann: the median of the Walsh averages; n = 8 at 0.05 gives
# the 4th lowest and highest (P(W <= 3) = 5/256, P(W <= 4) = 7/256 > 0.025).
d = [1.1, -0.2, 0.5, 0.9, 1.4, -0.3, 0.8, 0.7]
est, ci = cmp.hodges_lehmann(d, 0.05)
walsh = sorted((d[i] + d[j]) / 2 for i in range(8) for j in range(i, 8))
check("hodges-lehmann estimate", near(est, (walsh[17] + walsh[18]) / 2))
check("hodges-lehmann interval", ci == (walsh[3], walsh[-4]))
check("hodges-lehmann too few", cmp.hodges_lehmann([1.0, 2.0], 0.01)[1] is None)
check("normal quantile", near(cmp.norm_ppf(0.975), 1.959963985, 1e-8) and near(cmp.norm_ppf(0.005), -2.575829304, 1e-8))

# Verdicts on synthetic rounds: B 20% slower with 2% noise, B 20% faster,
# and B equal to A up to the noise.
wobble = [1 + 0.02 * math.sin(7 * i) for i in range(20)]
a = [{"x": [100.0 * w], "y": [50.0 * w], "z": [10.0 * w]} for w in wobble]
b = [{"x": [120.0 * w * (1 + 0.01 * math.cos(3 * i))], "y": [40.0 * w], "z": [10.0 * w * (1 + 0.01 * math.cos(5 * i))]}
     for i, w in enumerate(wobble)]
rows = {r["name"]: r for r in cmp.analyse(a, b, 0.01, 0.05)}
check("slower verdict", rows["x"]["verdict"] == "slower" and 1.18 < rows["x"]["ratio"] < 1.22)
check("faster verdict", rows["y"]["verdict"] == "faster" and near(rows["y"]["ratio"], 0.8, 1e-6))
check("no change verdict", rows["z"]["verdict"] == "no change")
check("interval holds the estimate", all(r["ci_low"] <= r["ratio"] <= r["ci_high"] for r in rows.values()))
check("detectable at least the threshold", all(r["detectable"] >= 0.05 for r in rows.values()))
# Below the threshold: significant but 3% is no verdict at 5%.
b3 = [{"x": [103.0 * w]} for w in wobble]
check("below threshold", cmp.analyse([{"x": r["x"]} for r in a], b3, 0.01, 0.05)[0]["verdict"] == "no change")
# Too few rounds for Holm's level: no detectable size.
check("too few rounds", cmp.detectable([0.1, 0.2, 0.3], 3, 0.01, 0.05) is None)

if len(sys.argv) > 2:
    build = sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "r.json")
        r = subprocess.run([sys.executable, tool, build, build, "--filter", "^crc32c/hardware/32$", "--rounds", "3",
                            "--repetitions", "3", "--min-time", "0.001", "--cpu", "none", "--quiet", "--json", out],
                           capture_output=True, text=True)
        check(f"smoke exit 0 (got {r.returncode}: {r.stderr[-300:]})", r.returncode == 0)
        check("smoke table", "crc32c/hardware/32" in r.stdout and "verdict: 0 slower" in r.stdout)
        if os.path.exists(out):
            j = json.load(open(out))
            row = j["benchmarks"][0]
            check("smoke json", row["name"] == "crc32c/hardware/32" and row["verdict"] == "no change"
                  and len(row["round_ratios"]) == 3 and all(len(t["crc32c/hardware/32"]) == 3
                                                            for t in j["cpu_time_ns"]["A"]))
        else:
            check("smoke json written", False)
        r = subprocess.run([sys.executable, tool, os.path.join(tmp, "absent"), build], capture_output=True, text=True)
        check("missing build: exit 2", r.returncode == 2)
        r = subprocess.run([sys.executable, tool, build], capture_output=True, text=True)
        check("usage: exit 2", r.returncode == 2)
        r = subprocess.run([sys.executable, tool, build, build, "--filter", "^no_such_benchmark$", "--rounds", "2",
                            "--quiet"], capture_output=True, text=True)
        check("no benchmark: exit 2", r.returncode == 2)
print(f"test_compare: {'FAILED' if failed else 'all passed'}")
sys.exit(1 if failed else 0)
