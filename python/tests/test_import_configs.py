"""placer.import_haproxy and placer.import_nginx against `placer
import-haproxy` / `import-nginx` on the files tests/test_import_haproxy.c
(tests/data/haproxy.cfg) and tests/test_import_nginx.c import: the same snapshot bytes, the same notes,
the same refusals (tests/compat_programs.py proves the command against the
real programs)."""
import os
import subprocess

import pytest

import placer

CLI = os.environ.get("PLACER_CLI", "placer")

DATA = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "data")
with open(os.path.join(DATA, "haproxy.cfg")) as f:
    HAPROXY_CFG = f.read()  # tests/test_import_haproxy.c imports it too

# tests/test_import_nginx.c's first configuration, its includes and glob
NGINX_FILES = {
    "nginx.conf": "events { }\nhttp {\n  include conf.d/*.conf;\n  include conf.d/none*.conf;\n"
                  "  upstream other { server 10.0.0.9:80; }\n}\n"
                  "stream {\n  upstream s { hash $remote_addr; server 127.0.0.1:7000; }\n}\n",
    "conf.d/a.conf": "# the cache\nupstream u {\n  include conf.d/servers.inc;\n"
                     "  hash $arg_k consistent;\n}\n",
    "conf.d/servers.inc": "server 127.0.0.1:8001 weight=2 max_fails=3;\n"
                          "server \"127.0.0.1:8002\";\nserver 127.0.0.1:8003 down;\n"
                          "server 'unix:/tmp/x.sock' ;\nserver [::1]:8004;\nserver 127.0.0.1:8001;\n",
}


def cli(*args):
    """(exit status, stdout, stderr) of the placer command."""
    r = subprocess.run([CLI, *map(str, args)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return r.returncode, r.stdout, r.stderr.decode()


def note_of(stderr, cmd):
    """The notes the command printed ("placer CMD: [FILE: ]note: ...")."""
    line = [l for l in stderr.splitlines() if ": note: " in l]
    assert len(line) == 1, stderr
    assert line[0].startswith("placer %s: " % cmd)
    return line[0].split(": note: ", 1)[1]


@pytest.fixture
def haproxy_cfg(tmp_path):
    path = tmp_path / "haproxy.cfg"  # a copy: the command and the module see one path
    path.write_text(HAPROXY_CFG)
    return path


@pytest.fixture
def nginx_conf(tmp_path):
    for name, text in NGINX_FILES.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    return tmp_path / "nginx.conf"


def same_as_the_command(tmp_path, program, path, name, snap, keys):
    """snap (imported at epoch 9) is the snapshot `placer import-PROGRAM
    PATH --epoch 9` writes, byte for byte, with the notes it prints, and
    places keys alike."""
    out = tmp_path / "cmd.snap"
    option = "--upstream" if program == "nginx" else "--backend"
    rc, _, err = cli("import-" + program, path, option, name, "--epoch", 9, "-o", out)
    assert rc == 0, err
    assert snap.encode() == out.read_bytes()
    assert snap.strategy == "compat" and snap.epoch == 9
    assert snap.import_notes == note_of(err, "import-" + program)
    assert snap.lookup_batch(keys).tolist() == placer.load(out).lookup_batch(keys).tolist()


@pytest.mark.parametrize("backend", ["b", "c"])
def test_haproxy_is_the_commands(tmp_path, haproxy_cfg, backend):
    keys = ["k%d" % i for i in range(500)]
    for source in (haproxy_cfg, HAPROXY_CFG.encode()):  # a path, or the text
        same_as_the_command(tmp_path, "haproxy", haproxy_cfg, backend,
                            placer.import_haproxy(source, backend, epoch=9), keys)


def test_haproxy_notes_and_defaults(haproxy_cfg):
    s = placer.import_haproxy(haproxy_cfg, "b")
    assert s.epoch == 0 and list(s.node_ids) == ["s1", "s2", "s6"]
    assert "server s4 is a backup: left out" in s.import_notes
    assert "the key is the value of URL parameter \"k\"" in s.import_notes


def test_haproxy_arguments(haproxy_cfg):
    with pytest.raises(TypeError):
        placer.import_haproxy(haproxy_cfg, b"b")
    with pytest.raises(ValueError):
        placer.import_haproxy(haproxy_cfg, "b\0c")
    with pytest.raises(placer.PlacerError) as e:
        placer.import_haproxy(haproxy_cfg, "b", epoch=-1)
    assert e.value.name == "PLACER_ERANGE"
    with pytest.raises(FileNotFoundError):
        placer.import_haproxy(haproxy_cfg.parent / "missing.cfg", "b")


@pytest.mark.parametrize("upstream", ["u", "s"])
def test_nginx_is_the_commands(tmp_path, nginx_conf, upstream):
    keys = ["/item/%d" % i for i in range(500)]
    for path in (nginx_conf, str(nginx_conf)):
        same_as_the_command(tmp_path, "nginx", nginx_conf, upstream,
                            placer.import_nginx(path, upstream, epoch=9), keys)


def test_nginx_nodes_and_notes(nginx_conf):
    s = placer.import_nginx(nginx_conf, "u")
    assert list(s.node_ids) == ["127.0.0.1:8001", "127.0.0.1:8002", "unix:/tmp/x.sock",
                                "[::1]:8004", "127.0.0.1:8001#2"]
    assert "conf.d/servers.inc:3: server 127.0.0.1:8003 is down: left out" in s.import_notes
    assert "conf.d/a.conf:4: the key is the value of \"$arg_k\"" in s.import_notes


# (importer, file text, backend or upstream, what the refusal says)
REFUSALS = [
    ("haproxy", HAPROXY_CFG, "nope", "no backend or listen section \"nope\""),
    ("haproxy", "backend x\n  balance roundrobin\n  server a 1.2.3.4:80\n", "x",
     "line 2: balance roundrobin"),
    ("haproxy", "backend x\n  balance uri\n  hash-type consistent md5\n", "x",
     "line 3: hash-type: \"md5\""),
    ("haproxy", "backend x\n  balance uri\n  server a 1.2.3.4:80 weight 300\n", "x",
     "line 3: weight \"300\""),
    ("nginx", "http { upstream u { server 127.0.0.1:1; } }\n", "u", "has no hash directive"),
    ("nginx", "http {\n upstream u {\n  hash $k;\n  server 127.0.0.1:1 backup;\n }\n}\n", "u",
     "nginx.conf:4: server 127.0.0.1:1: backup"),
    ("nginx", "http {\n  include missing.conf;\n}\n", "u", "nginx.conf:2: cannot open"),
    ("nginx", "http { upstream u { hash $k; server 127.0.0.1:1; }\n", "u", "unexpected end of file"),
    ("nginx", "http { upstream v { hash $k; server 127.0.0.1:1; } }\n", "u", "no upstream \"u\""),
]


@pytest.mark.parametrize("program, text, name, message", REFUSALS)
def test_refusals_are_the_commands(tmp_path, program, text, name, message):
    """The file refused by the command (its message holding message) and by
    the module with PLACER_EFORMAT and the same message."""
    path = tmp_path / ("nginx.conf" if program == "nginx" else "bad.cfg")
    path.write_text(text)
    option = "--upstream" if program == "nginx" else "--backend"
    rc, _, err = cli("import-" + program, path, option, name, "-o", tmp_path / "x.snap")
    assert rc != 0 and message in err
    with pytest.raises(placer.PlacerError) as e:
        getattr(placer, "import_" + program)(path, name)
    assert e.value.name == "PLACER_EFORMAT"
    # the command says "placer import-PROGRAM: " and then the module's detail
    assert err.strip() == "placer import-%s: %s" % (program, e.value.detail)


def test_nginx_takes_a_path_only(nginx_conf):
    with pytest.raises(TypeError):
        placer.import_nginx(bytearray(b"http {}"), "u")
    with pytest.raises(TypeError):
        placer.import_nginx(nginx_conf, None)
