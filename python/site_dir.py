"""python/site_dir.py PREFIX -- the directory under PREFIX, relative, where
this interpreter's `import` looks for modules (Debian: lib/python3.X/
dist-packages), or nothing when no such directory is on its path. Run by
python/meson.build: meson's default for Debian, lib/python3/dist-packages,
is on the path of /usr (Debian's own packages) but not of /usr/local."""
import os
import sys

prefix = sys.argv[1]
version = "%d.%d" % sys.version_info[:2]
for rel in ("lib/python%s/dist-packages" % version, "lib/python%s/site-packages" % version,
            "lib/python3/dist-packages"):
    if os.path.join(prefix, rel) in sys.path:
        print(rel)
        break
