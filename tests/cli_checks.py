"""cli_checks.py -- the counting check the command's Python tests share:
check(cond, what) prints FAIL and counts; done(name) reports and exits."""
import sys

failed = 0


def check(cond, what):
    global failed
    if not cond:
        failed += 1
        print("FAIL: " + what)


def done(name, detail=""):
    print("%s: %s%s" % (name, detail, "FAILED %d" % failed if failed else "ok"))
    sys.exit(1 if failed else 0)
