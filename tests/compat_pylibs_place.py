"""compat_pylibs_place.py -- uhashring and pymemcache as their users call
them, for tests/compat_clientlibs.py, which runs it under Debian's
/usr/bin/python3 (python3-uhashring, python3-pymemcache). Reads one JSON
document on stdin:

  {"lib": "uhashring" | "uhashring-ketama" | "pymemcache",
   "nodes": [{"name": N, "weight": W, "vnodes": V}, ...],   (V 0: the default)
   "vnodes": V, "replicas": R,                             (0: not given)
   "keys": [str, ...], "bytes_keys": [hex, ...]}          (bytes_keys: pymemcache, optional)

and writes {"owners": [node index of each key], "client": K}: uhashring's
HashRing(...).get_node(key); pymemcache's HashClient(servers) with its
default RendezvousHash, each key through the client's own _get_client
when its key checks accept the key (K of them), else its hasher's
get_node; for pymemcache also "bytes_owners", each bytes key's node
through _get_client (RendezvousHash formats it as its str() text).
Exit 3 when a library is missing.
"""
import json
import sys

try:
    from uhashring import HashRing
    from pymemcache.client.hash import HashClient
    from pymemcache.exceptions import MemcacheIllegalInputError
except ImportError as e:
    print("compat_pylibs_place: %s" % e, file=sys.stderr)
    sys.exit(3)


def uhashring(doc, ketama):
    nodes = {}
    for n in doc["nodes"]:
        conf = {"weight": n["weight"]}
        if n["vnodes"]:
            conf["vnodes"] = n["vnodes"]
        nodes[n["name"]] = conf
    kw = {}
    if ketama:
        kw["hash_fn"] = "ketama"
        if doc.get("replicas"):
            kw["replicas"] = doc["replicas"]
    if doc.get("vnodes"):
        kw["vnodes"] = doc["vnodes"]
    ring = HashRing(nodes=nodes, **kw)
    index = {n["name"]: i for i, n in enumerate(doc["nodes"])}
    return [index[ring.get_node(k)] for k in doc["keys"]], 0


def pymemcache(doc):
    servers = []
    for n in doc["nodes"]:
        host, port = n["name"].rsplit(":", 1)
        servers.append((host, int(port)))
    client = HashClient(servers, allow_unicode_keys=True)
    index = {"%s:%s" % s: i for i, s in enumerate(servers)}
    owners, through_client = [], 0
    for k in doc["keys"]:
        try:
            server = client._get_client(k).server
            owners.append(index["%s:%s" % server])
            through_client += 1
            if client.hasher.get_node(k) != "%s:%s" % server:
                raise SystemExit("compat_pylibs_place: client and hasher differ")
        except (MemcacheIllegalInputError, UnicodeEncodeError):
            owners.append(index[client.hasher.get_node(k)])
    doc["bytes_owners"] = [index["%s:%s" % client._get_client(bytes.fromhex(h)).server]
                           for h in doc.get("bytes_keys", [])]
    return owners, through_client


def main():
    doc = json.load(sys.stdin)
    lib = doc["lib"]
    if lib == "pymemcache":
        owners, k = pymemcache(doc)
    else:
        owners, k = uhashring(doc, lib == "uhashring-ketama")
    json.dump({"owners": owners, "client": k, "bytes_owners": doc.get("bytes_owners", [])},
              sys.stdout)


main()
