#!/usr/bin/env python3
"""test_cli_lookup_json.py PLACER -- `placer lookup --json` writes its lines
itself (cli/lookup_json.c, no document a key): each line must parse as
JSON and say what the text output says for the same key.

Keys of every byte class: plain, quotes and backslashes, every control
byte, DEL, UTF-8 of 2-4 bytes, bytes that are not UTF-8 (key_base64), and
through --hex a NUL byte (key_hex too). Nodes with names that need
escaping in JSON. For each key: the parsed key (or base64) gives back the
bytes given; owner, zone, address and the replica ids equal the text
output's columns; zones, epoch and the field order are those documented.
"""
import base64
import json
import os
import subprocess
import sys
import tempfile

from cli_checks import check, done

placer = sys.argv[1]


MEMBERSHIP = {"strategy": "ring", "epoch": 9, "nodes": [
    {"id": "plain", "zone": "z1", "address": "10.0.0.1:11211"},
    {"id": "quo\"te", "zone": "z\\2", "address": "h/1"},
    {"id": "caf\u00e9", "zone": "z3"},
    {"id": "tab\tid", "zone": "z1", "address": "10.0.0.4:1"}]}
keys = [b"plain", b'q"uote\\s', b"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", b"del\x7f",
        b"\xff\xfe not utf-8", b"\xc3"] + [b"ctl" + bytes([c]) for c in range(1, 32) if c != 10]
keys += [b"k%d" % i for i in range(200)]

with tempfile.TemporaryDirectory() as d:
    member, snap = os.path.join(d, "m.json"), os.path.join(d, "m.snap")
    with open(member, "w") as f:
        json.dump(MEMBERSHIP, f)
    subprocess.run([placer, "build", member, "-o", snap], check=True, stdout=subprocess.DEVNULL)
    hexkeys = "".join(k.hex() + "\n" for k in keys + [b"nul\x00byte"]).encode()
    js = subprocess.run([placer, "lookup", "--json", "--hex", "--replicas", "3", snap],
                        input=hexkeys, capture_output=True, check=True).stdout
    text = subprocess.run([placer, "lookup", "--hex", "--replicas", "3", snap],
                          input=hexkeys, capture_output=True, check=True).stdout

ids = {n["id"] for n in MEMBERSHIP["nodes"]}
by_id = {n["id"]: n for n in MEMBERSHIP["nodes"]}
lines, rows = js.decode("utf-8").splitlines(), text.decode("utf-8").splitlines()
check(len(lines) == len(keys) + 1 and len(rows) == len(lines), "%d lines, %d rows, %d keys"
      % (len(lines), len(rows), len(keys) + 1))
for key, line, row in zip(keys + [b"nul\x00byte"], lines, rows):
    doc = json.loads(line)
    cols = row.split("\t")
    if "key" in doc:
        got = doc["key"].encode("utf-8")
        check(b"\x00" not in key, "a key with NUL as \"key\": %r" % line)
    else:
        got = base64.b64decode(doc["key_base64"])
        try:
            key.decode("utf-8")
            check(b"\x00" in key, "valid UTF-8 as key_base64: %r" % line)
        except UnicodeDecodeError:
            pass
    check(got == key, "key %r came back as %r" % (key, got))
    check(doc["key_hex"] == key.hex(), "key_hex of %r" % key)
    owner = doc["owner"]
    check(owner in ids, "owner %r" % owner)
    node = by_id.get(owner, {})
    check(doc["zone"] == node.get("zone") and doc["address"] == node.get("address", ""),
          "zone/address of %r: %r" % (owner, line))
    # the text output escapes names (placer_escape): compare through it
    text_owner = cols[1].encode().decode("unicode_escape") if "\\" in cols[1] else cols[1]
    check(text_owner == owner, "owner %r in JSON, %r in text" % (owner, cols[1]))
    reps = [r["id"] for r in doc["replicas"]]
    text_reps = [r.encode().decode("unicode_escape") if "\\" in r else r for r in cols[3].split(",")]
    check(reps == text_reps, "replicas %r against %r" % (reps, text_reps))
    check(doc["epoch"] == 9 and doc["zones"] == int(cols[4]), "zones/epoch: %r" % line)
    check(list(doc) == ["format", "key" if "key" in doc else "key_base64", "key_hex", "owner",
                        "zone", "address", "replicas", "zones", "under_replicated", "epoch"],
          "field order %r" % list(doc))

done("test_cli_lookup_json", "%d keys, " % len(lines))
