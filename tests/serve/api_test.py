#!/usr/bin/env python3
"""The desk's API end to end: a real `tsume serve` on a free port, with a real
database, answered requests compared with what the commands print for the same
problem; every error status; the safety rules (a foreign Host, a foreign
Origin, a body over 1 MiB, paths outside the fixed files, a client that goes
away mid-compose, too many jobs); malformed HTTP requests, after each of which
the server still answers.

usage: api_test.py <tsume binary> <scratch folder>
"""
import atexit
import http.client
import json
import os
import socket
import subprocess
import sys
import time

T = sys.argv[1]
W = sys.argv[2]
os.makedirs(W, exist_ok=True)
passed = failed = 0

FLAWED = "5k3/9/4PG2G/9/9/9/9/9/9 b 2r2b2g4s4n4l17p 1"  # a 7-ply work with a 余詰 (G2P1)
COMPLETE = "6k2/4G4/6G2/8p/9/9/9/9/9 b 2r2b2g4s4n4l17p 1"  # complete, 7 plies
MATE1 = "8k/9/7G1/9/9/9/9/9/9 b G2r2b2g4s4n4l18p 1"  # G*1b, and G*2b mates too
HEAVY = "ln1gk2nl/1r1s2sb1/p1pppp1pp/1p4p2/9/2P6/PPBPPPPPP/1S5R1/LN1GKGSNL b - 1"  # no mate: a long proof


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print("ok  ", name)
    else:
        failed += 1
        print("FAIL", name, detail)


def run(*args):
    p = subprocess.run([T, *args], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


# ---------------------------------------------------------------- the server
rc, _, err = run("enumerate", "--pieces", "G2P1", "--db", os.path.join(W, "g.mdb"), "--force")
check("enumerate G2P1", rc == 0, err)
srv = subprocess.Popen([T, "serve", "--port", "0", "--jobs", "2", "--db", os.path.join(W, "g.mdb")],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
# a test that stops on an exception leaves no server behind
atexit.register(lambda: srv.poll() is None and srv.kill())
first = srv.stdout.readline()
check("serve prints its address", first.startswith("tsume serve: http://127.0.0.1:"), first)
port = int(first.strip().rsplit(":", 1)[1].rstrip("/"))
HOST = "127.0.0.1:%d" % port


def request(method, path, body=None, headers=None, timeout=60):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    h = {"Host": HOST}
    if headers:
        h.update(headers)
    if isinstance(body, (dict, list)):
        body = json.dumps(body)
        h.setdefault("Content-Type", "application/json")
    if isinstance(body, str):
        body = body.encode("utf-8")
    c.request(method, path, body=body, headers=h)
    r = c.getresponse()
    data = r.read()
    c.close()
    return r.status, dict(r.getheaders()), data


def lines(data):
    return [json.loads(l) for l in data.decode().splitlines() if l.strip()]


def alive(what):
    try:
        st, _, data = request("GET", "/api/info", timeout=10)
        check("server alive after " + what, st == 200 and json.loads(data)["version"], st)
    except Exception as e:  # noqa: BLE001
        check("server alive after " + what, False, repr(e))


def strip_times(o):
    return {k: v for k, v in o.items() if k not in ("time_ms", "first_flaw_ms")}


# ---------------------------------------------------------------- the pages
st, h, data = request("GET", "/")
check("GET / is the desk", st == 200 and h.get("Content-Type", "").startswith("text/html") and b"<html" in data.lower(), st)
check("no CORS header", not any(k.lower().startswith("access-control") for k in h), h)
check("a content security policy", "default-src 'self'" in h.get("Content-Security-Policy", ""), h)
st, _, data = request("GET", "/api/info")
info = json.loads(data)
check("info names the database", st == 200 and info["db"]["material"] == "G2P1" and info["db"]["problems"] > 0, info)

# ---------------------------------------------------------------- check
for sfen in (FLAWED, COMPLETE, MATE1):
    st, h, data = request("POST", "/api/check", {"sfen": sfen})
    ls = lines(data)
    rc, out, _ = run("check", "--json", sfen)
    cli = json.loads(out.splitlines()[0])
    check("check %s: streamed job id first" % sfen[:12], st == 200 and "job" in ls[0], ls[:1])
    check("check %s: last line is check --json's object" % sfen[:12], strip_times(ls[-1]) == strip_times(cli),
          (ls[-1], cli))
    check("check %s: NDJSON" % sfen[:12], h.get("Content-Type", "").startswith("application/x-ndjson"), h)
st, _, data = request("POST", "/api/check", {"sfen": FLAWED})
last = lines(data)[-1]
check("flawed diagram: verdict flawed with a 余詰 drawn from alt", last["verdict"] == "flawed" and any(
    f["kind"] == "yozume" and f["kind_ja"] == "余詰" and f["alt"] for f in last["flaws"]), last)
line = " ".join(lines(request("POST", "/api/check", {"sfen": COMPLETE})[2])[-1]["line"])
st, _, data = request("POST", "/api/check", {"sfen": COMPLETE, "line": line, "time_ms": 5000})
rc, out, _ = run("check", "--json", "--line", line, COMPLETE)
check("check with a line = check --line --json", strip_times(lines(data)[-1]) == strip_times(json.loads(out.splitlines()[0])))
# a node budget gives the command's answer node for node, whatever the machine's speed
HARD = "6R2/8k/8r/8G/9/9/9/9/9 b N2b3g4s3n4l18p 1"
HARD_LINE = "N*2d 1b2b 2d3b+ 2b1b 3a2a+"
st, _, data = request("POST", "/api/check", {"sfen": HARD, "line": HARD_LINE, "time_ms": 60000, "nodes": 300000})
rc, out, _ = run("check", "--json", "--nodes", "300000", "--line", HARD_LINE, HARD)
got, want = strip_times(lines(data)[-1]), strip_times(json.loads(out.splitlines()[0]))
check("check with nodes = check --nodes --json (budget spent, questions open)",
      got == want and got["nodes"] >= 300000 and "open" in got, (got, want))
st, _, data = request("POST", "/api/check", {"sfen": COMPLETE, "line": line.split()})
check("line as an array", lines(data)[-1]["line_given"] is True and lines(data)[-1]["verdict"] == "complete")
# a long check streams its progress with the nodes searched so far (never fewer than the line before);
# tanuki-3-0485 keeps its 1.5 s busy: sixteen other checks, most of whose "mate at all?" take seconds
st, _, data = request("POST", "/api/check", {"sfen": "9/7R1/6kS1/9/9/9/9/9/9 b RS2b4g2s4n4l18p 1",
                                             "line": "R*3d 3c4c S*5d", "time_ms": 1500})
prog = [o["progress"] for o in lines(data) if "progress" in o]
check("check progress: elapsed and nodes, growing", len(prog) >= 3 and all("nodes" in p for p in prog) and
      prog[-1]["nodes"] > 0 and all(a["nodes"] <= b["nodes"] for a, b in zip(prog, prog[1:])), prog[:4])
# a flaw is streamed as soon as it is proven, while the check goes on, as the report has it
# (the 余詰 2a2c+ in a few hundred milliseconds; the other checks' "mate at all?" keep the budget)
EARLY = "7R1/6k2/9/9/9/7R1/9/9/9 b S2b4g3s4n4l18p 1"
st, _, data = request("POST", "/api/check", {"sfen": EARLY, "line": "2f2c+ 3b4b S*5c", "time_ms": 3000})
ls = lines(data)
fi = [i for i, o in enumerate(ls) if "flaw" in o]
last = ls[-1]
check("a flaw streamed while the check goes on", bool(fi) and ls[fi[0]]["flaw"]["kind"] == "yozume" and
      any("progress" in o for o in ls[fi[0] + 1:-1]), ls[:4])
check("streamed flaws are the report's, on its line",
      sorted(json.dumps(ls[i]["flaw"], sort_keys=True) for i in fi) ==
      sorted(json.dumps(f, sort_keys=True) for f in last["flaws"]) and all(ls[i]["line"] == last["line"] for i in fi),
      (fi, last))
st, _, data = request("POST", "/api/check", {"sfen": HEAVY, "time_ms": 300})
last = lines(data)[-1]
check("time_ms bounds a check (unknown or nomate within the budget)", last["verdict"] in ("unknown", "nomate"), last)

# ---------------------------------------------------------------- roles, svg, kif, bod, parse
st, h, data = request("POST", "/api/roles", {"sfen": COMPLETE})
rc, out, _ = run("roles", "--json", COMPLETE)
check("roles = roles --json", st == 200 and json.loads(data) == json.loads(out), data[:200])
st, _, data = request("POST", "/api/roles", {"sfen": COMPLETE, "line": line})
rc, out, _ = run("roles", "--json", "--line", line, COMPLETE)
check("roles with a line = roles --json --line", json.loads(data) == json.loads(out))
st, h, data = request("POST", "/api/svg", {"sfen": COMPLETE})
rc, out, _ = run("show", "--svg", COMPLETE)
check("svg = show --svg", st == 200 and h["Content-Type"].startswith("image/svg+xml") and data.decode() == out,
      data[:100])
st, _, data = request("POST", "/api/kif", {"sfen": COMPLETE, "line": line})
kif_text = data.decode()
check("kif: a KIF with the line", st == 200 and "手数----指手" in kif_text and "詰み" in kif_text, kif_text[:300])
st, _, data = request("POST", "/api/parse", data.decode())
p = json.loads(data)
check("parse reads the KIF back: same diagram and line", st == 200 and p["sfen"] == COMPLETE and " ".join(p["line"]) == line, p)
st, _, data = request("POST", "/api/bod", {"sfen": COMPLETE})
bod = data.decode()
check("bod: a diagram", st == 200 and "後手の持駒" in bod and "+---------------------------+" in bod, bod[:200])
st, _, data = request("POST", "/api/parse", bod)
check("parse reads the BOD back", st == 200 and json.loads(data)["sfen"] == COMPLETE, data)
st, _, data = request("POST", "/api/parse", bod.encode("cp932"))
check("parse reads a Shift_JIS BOD", st == 200 and json.loads(data)["sfen"] == COMPLETE, data)
st, _, data = request("POST", "/api/parse", "sfen " + COMPLETE + " moves " + line)
check("parse reads a USI SFEN with moves", st == 200 and " ".join(json.loads(data)["line"]) == line, data)

# ---------------------------------------------------------------- query, export
st, h, data = request("GET", "/api/query?moves=7&complete=1&limit=5")
rc, out, _ = run("query", "--db", os.path.join(W, "g.mdb"), "--moves", "7", "--complete", "--limit", "5", "--json")
check("query = query --json", st == 200 and lines(data) == [json.loads(l) for l in out.splitlines()], data[:300])
st, _, data = request("GET", "/api/query?moves=7&complete=1&limit=2&offset=1")
check("query offset", lines(data) == [json.loads(l) for l in out.splitlines()][1:3])
st, _, data = request("GET", "/api/query?moves=5&flag=yozume&limit=3")
check("query by flag", st == 200 and all("yozume" in o["flags"] for o in lines(data)) and len(lines(data)) == 3)
tmp_before = {d for d in os.listdir("/tmp") if d.startswith("tsume-serve-")}
st, h, data = request("GET", "/api/export.kif?moves=7&complete=1&limit=3")
rc, _, _ = run("export", "--db", os.path.join(W, "g.mdb"), "--moves", "7", "--complete", "--limit", "3",
               "--kif-file", os.path.join(W, "e.kifu"))
with open(os.path.join(W, "e.kifu"), encoding="utf-8") as f:
    exported = f.read()
check("export.kif = tsume export --kif-file (three records with 変化), as a download",
      st == 200 and data.decode() == exported and exported.count("手数----指手") == 3
      and "attachment" in h.get("Content-Disposition", ""), h)
st, h, data = request("GET", "/api/export.kif?moves=5&flag=hendou,yozume&limit=20")
rc, _, _ = run("export", "--db", os.path.join(W, "g.mdb"), "--moves", "5", "--flag", "hendou", "--flag", "yozume",
               "--limit", "20", "--kif-file", os.path.join(W, "f.kifu"))
with open(os.path.join(W, "f.kifu"), encoding="utf-8") as f:
    exported = f.read()
check("export.kif by flag = tsume export --flag hendou --flag yozume",
      st == 200 and data.decode() == exported and exported.count("手数----指手") >= 1, (st, data[:200]))
st, h, data = request("GET", "/api/export.tar?moves=7&complete=1&limit=4")
import io
import tarfile
names = tarfile.open(fileobj=io.BytesIO(data)).getnames() if st == 200 else []
check("export.tar: the HTML book of four works", st == 200 and "book/index.html" in names and len(
    [n for n in names if n.startswith("book/w/") and n.endswith(".html")]) == 4, (st, names[:5]))
st, _, data = request("GET", "/api/export.kif?moves=99")
check("export of nothing: 404 with export's message", st == 404 and "exported 0" in json.loads(data)["error"], data)
check("no temporary folder left", {d for d in os.listdir("/tmp") if d.startswith("tsume-serve-")} <= tmp_before)

# ---------------------------------------------------------------- compose: stream, stop, disconnect
c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
c.request("POST", "/api/compose", body=json.dumps({"sfen": FLAWED, "time_ms": 60000, "seed": 3}),
          headers={"Host": HOST, "Content-Type": "application/json"})
r = c.getresponse()
job = json.loads(r.readline())["job"]
t0 = time.time()
seen = []
while True:
    l = r.readline()
    if not l:
        break
    o = json.loads(l)
    seen.append(o)
    if "progress" in o and time.time() - t0 > 1.5 and len(seen) > 1:
        st, _, d = request("POST", "/api/jobs/%s/stop" % job, b"")
        check("stop a compose job", st == 200, d)
        break
rest = r.read().decode().splitlines()
c.close()
final = json.loads(rest[-1])
check("compose streams the best so far", any("best" in o for o in seen + [json.loads(x) for x in rest]), seen[:3])
check("compose stopped: the final object keeps the best", final.get("stop_reason") == "stop" and final["result"] in (
    "complete", "improved", "unchanged") and final["sfen"], final)
check("compose stopped well before its budget", time.time() - t0 < 20, time.time() - t0)
t1 = time.time()
while time.time() - t1 < 5 and request("POST", "/api/jobs/%s/stop" % job, b"")[0] != 404:
    time.sleep(0.05)
check("a finished job: 404", request("POST", "/api/jobs/%s/stop" % job, b"")[0] == 404)

# a client that goes away: its job ends
s = socket.create_connection(("127.0.0.1", port))
body = json.dumps({"sfen": FLAWED, "time_ms": 120000}).encode()
s.sendall(b"POST /api/compose HTTP/1.1\r\nHost: " + HOST.encode() + b"\r\nContent-Type: application/json\r\n"
          b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
s.recv(200)
info = json.loads(request("GET", "/api/info")[2])
check("the compose job runs", info["running"] == 1, info)
s.close()
t0 = time.time()
while time.time() - t0 < 10 and json.loads(request("GET", "/api/info")[2])["running"] != 0:
    time.sleep(0.1)
gone = time.time() - t0
check("a client that went away: its job ended (%.2f s)" % gone, gone < 5, gone)

# too many jobs: --jobs 2
conns = []
for _ in range(2):
    cc = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    cc.request("POST", "/api/compose", body=json.dumps({"sfen": FLAWED, "time_ms": 20000}),
               headers={"Host": HOST, "Content-Type": "application/json"})
    rr = cc.getresponse()
    rr.readline()
    conns.append((cc, rr))
st, _, data = request("POST", "/api/check", {"sfen": MATE1})
check("a third job with --jobs 2: 503", st == 503 and "busy" in json.loads(data)["error"], (st, data))
for cc, rr in conns:
    cc.close()
t0 = time.time()
while time.time() - t0 < 10 and json.loads(request("GET", "/api/info")[2])["running"] != 0:
    time.sleep(0.1)
st, _, data = request("POST", "/api/check", {"sfen": MATE1})
check("after they went away a check runs again", st == 200 and lines(data)[-1]["verdict"] == "flawed", data)

# from a mate picture
st, _, data = request("POST", "/api/compose", {"sfen": "8k/8G/8P/9/9/9/9/9/9 w 2r2b3g4s4n4l17p 1", "from_mate": True,
                                               "max_moves": 3, "time_ms": 20000})
ls = lines(data)
check("compose from a mate picture: works, then the summary", ls[-1].get("result") == "complete" and any(
    "work" in o and o["work"]["verdict"] == "complete" for o in ls), ls[-1])

# ---------------------------------------------------------------- errors: 4xx with the command line's message
def error_case(name, method, path, body, status, cli_args=None, contains=None):
    st, h, data = request(method, path, body)
    try:
        msg = json.loads(data)["error"]
    except Exception:  # noqa: BLE001
        msg = None
    ok = st == status and msg is not None and h.get("Content-Type", "").startswith("application/json")
    if cli_args:
        rc, out, err = run(*cli_args)
        cli_msg = err.strip().splitlines()[-1].split(": ", 1)[1]
        ok = ok and cli_msg in msg
    if contains:
        ok = ok and contains in msg
    check("error %s: %d" % (name, status), ok, (st, data))


error_case("bad side to move", "POST", "/api/check", {"sfen": "8k/9/7G1/9/9/9/9/9/9 x G 1"}, 400,
           ["roles", "8k/9/7G1/9/9/9/9/9/9 x G 1"])
error_case("no defender king", "POST", "/api/check", {"sfen": "9/9/7G1/9/9/9/9/9/9 b G 1"}, 400,
           ["roles", "9/9/7G1/9/9/9/9/9/9 b G 1"])
error_case("二歩", "POST", "/api/check", {"sfen": "8k/9/9/9/9/9/9/P8/P8 b G 1"}, 400,
           ["roles", "8k/9/9/9/9/9/9/P8/P8 b G 1"])
error_case("illegal line", "POST", "/api/check", {"sfen": MATE1, "line": "5e5d"}, 400, contains="line")
error_case("not JSON", "POST", "/api/check", "{sfen:", 400, contains="not JSON")
error_case("not an object", "POST", "/api/check", "[1]", 400, contains="object")
error_case("no sfen", "POST", "/api/check", {"line": "G*1b"}, 400, contains="sfen")
error_case("time_ms too large", "POST", "/api/check", {"sfen": MATE1, "time_ms": 10 ** 12}, 400, contains="time_ms")
error_case("time_ms not a number", "POST", "/api/check", {"sfen": MATE1, "time_ms": "x"}, 400, contains="time_ms")
error_case("nodes negative", "POST", "/api/check", {"sfen": MATE1, "nodes": -1}, 400, contains="nodes")
error_case("nodes not a number", "POST", "/api/check", {"sfen": MATE1, "nodes": "many"}, 400, contains="nodes")
error_case("line of another type", "POST", "/api/check", {"sfen": MATE1, "line": 5}, 400, contains="line")
error_case("parse garbage", "POST", "/api/parse", "hello", 400, contains="unknown file type")
error_case("parse an impossible KIF", "POST", "/api/parse", bod.replace("v玉", "v金"), 400)
error_case("from_mate on a position that is not mate", "POST", "/api/compose",
           {"sfen": MATE1, "from_mate": True}, 400, contains="mate")
error_case("unknown API", "POST", "/api/nothing", {}, 404)
error_case("GET on a POST API", "GET", "/api/check", None, 405)
error_case("POST on a GET API", "POST", "/api/info", b"", 405)
error_case("query: bad moves", "GET", "/api/query?moves=x", None, 400, contains="moves")
error_case("query: unknown flag", "GET", "/api/query?flag=nosuch", None, 400, contains="nosuch")
error_case("query: limit 0", "GET", "/api/query?limit=0", None, 400, contains="limit")
error_case("export: an unknown flag", "GET", "/api/export.kif?flag=nosuch", None, 400, contains="nosuch")
error_case("export: complete and a fatal flaw", "GET", "/api/export.kif?complete=1&flag=yozume", None, 404,
           contains="exclude each other")
error_case("export.tar: limit over 2000", "GET", "/api/export.tar?limit=2001", None, 400, contains="limit")
error_case("stop: no such job", "POST", "/api/jobs/0123456789abcdef0123456789abcdef/stop", b"", 404)
error_case("a method not served", "DELETE", "/api/check", None, 405)

# ---------------------------------------------------------------- safety
st, _, _ = request("GET", "/api/info", headers={"Host": "evil.example:%d" % port})
check("a foreign Host: 403 (DNS rebinding)", st == 403, st)
st, _, _ = request("GET", "/", headers={"Host": "127.0.0.1.evil.example"})
check("a Host that only starts like ours: 403", st == 403, st)
st, _, _ = request("POST", "/api/check", {"sfen": MATE1}, headers={"Origin": "http://evil.example"})
check("a foreign Origin: 403", st == 403, st)
st, _, _ = request("POST", "/api/check", {"sfen": MATE1}, headers={"Origin": "null"})
check("an opaque Origin: 403", st == 403, st)
st, _, _ = request("POST", "/api/check", {"sfen": MATE1}, headers={"Origin": "http://" + HOST})
check("our own Origin: served", st == 200, st)
st, _, _ = request("POST", "/api/check", {"sfen": MATE1}, headers={"Sec-Fetch-Site": "cross-site"})
check("Sec-Fetch-Site cross-site: 403", st == 403, st)
s = socket.create_connection(("127.0.0.1", port), timeout=10)
s.sendall(b"POST /api/parse HTTP/1.1\r\nHost: " + HOST.encode() + b"\r\nContent-Length: %d\r\n\r\n" % (1024 * 1024 + 1))
answer = s.recv(200)
s.close()
check("a body over 1 MiB: 413 before it is sent", answer.startswith(b"HTTP/1.1 413"), answer)
alive("a body over the limit")
for path in ("/../../etc/passwd", "/etc/passwd", "/desk.js/../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd",
             "/index.html", "/web/desk/desk.js", "//etc/passwd", "/api/../../etc/passwd"):
    st, _, data = request("GET", path)
    check("a path outside the files: %s -> 404" % path, st == 404 and b"root:" not in data, st)


def raw(data, what, expect_close=True):
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    try:
        s.sendall(data)
        s.shutdown(socket.SHUT_WR)
        out = b""
        while True:
            b = s.recv(65536)
            if not b:
                break
            out += b
    except OSError:
        out = b""
    s.close()
    check("raw %s: answered with a 4xx (505 for a version) or closed" % what, out == b"" or out.startswith((b"HTTP/1.1 4", b"HTTP/1.0 4", b"HTTP/1.1 505")),
          out[:80])
    alive(what)


H = HOST.encode()
raw(b"\x00\x01\x02garbage\r\n\r\n", "binary garbage")
raw(b"GET / HTTP/1.1\r\n\r\n", "no Host")
raw(b"GET / HTTP/9.9\r\nHost: " + H + b"\r\n\r\n", "HTTP/9.9")
raw(b"GET /" + b"a" * 100000 + b" HTTP/1.1\r\nHost: " + H + b"\r\n\r\n", "a 100 kB URL")
raw(b"GET / HTTP/1.1\r\nHost: " + H + b"\r\n" + b"X-A: " + b"b" * 200000 + b"\r\n\r\n", "a 200 kB header")
raw(b"POST /api/check HTTP/1.1\r\nHost: " + H + b"\r\nContent-Length: -5\r\n\r\n{}", "a negative length")
raw(b"POST /api/check HTTP/1.1\r\nHost: " + H + b"\r\nContent-Length: 99999999999999999999\r\n\r\n{}", "a huge length")
raw(b"POST /api/parse HTTP/1.1\r\nHost: " + H + b"\r\nTransfer-Encoding: chunked\r\n\r\nZZZ\r\nxx\r\n0\r\n\r\n",
    "a bad chunk")
raw(b"POST /api/parse HTTP/1.1\r\nHost: " + H + b"\r\nTransfer-Encoding: chunked\r\n\r\n" +
    (b"100000\r\n" + b"y" * 0x100000 + b"\r\n") * 2 + b"0\r\n\r\n", "a chunked body over 1 MiB")
raw(b"POST /api/check HTTP/1.1\r\nHost: " + H + b"\r\nContent-Length: 10\r\n\r\n{\"sf", "a body cut short")
raw(b"GET / HTTP/1.1\r\nHost: " + H + b"\r\n" + b"X: y\r\n" * 5000 + b"\r\n", "5000 headers")
raw(b"POST /api/check HTTP/1.1\r\nHost: " + H + b"\r\nContent-Length: 13\r\n\r\n{\"sfen\":\"\x00\"}", "a NUL in the SFEN")
raw(b"POST /api/check HTTP/1.1\r\nHost: " + H + b"\r\nContent-Length: 14\r\n\r\n{\"sfen\":\"\xff\xfe\"}", "invalid UTF-8")
# many slow clients at once do not stop the others
socks = [socket.create_connection(("127.0.0.1", port)) for _ in range(20)]
for s in socks:
    s.sendall(b"GET / HTTP/1.1\r\n")
alive("20 idle half-sent requests")
for s in socks:
    s.close()
alive("the idle clients closed")

# ---------------------------------------------------------------- the end
srv.terminate()
try:
    srv.wait(timeout=10)
    check("SIGTERM stops the server with status 0", srv.returncode == 0, srv.returncode)
except subprocess.TimeoutExpired:
    srv.kill()
    check("SIGTERM stops the server", False)
# a second server on the same port is refused with a message and status 3
busy = socket.socket()
busy.bind(("127.0.0.1", 0))
busy.listen(1)
rc, out, err = run("serve", "--port", str(busy.getsockname()[1]))
check("a port in use: exit 3 with a message", rc == 3 and "cannot listen" in err, (rc, err))
busy.close()
rc, out, err = run("serve", "--db", os.path.join(W, "nosuch.mdb"), "--port", "0")
check("a database that cannot be opened: exit 3", rc == 3 and "nosuch.mdb" in err, (rc, err))
rc, out, err = run("serve", "--port=70000")
check("--port=70000: exit 2 naming the option", rc == 2 and "--port" in err, (rc, err))
rc, out, err = run("serve", "--listen", "not-an-address", "--port", "0")
check("--listen of no address: exit 2", rc == 2 and "not-an-address" in err, (rc, err))

print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
