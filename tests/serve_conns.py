"""Hundreds of idle and slow connections must not lock new clients out of
`memlens serve` (tests/cli_serve_conns.sh).

usage: serve_conns.py HOST PORT IDLE SLOW FRESH
Opens IDLE TCP connections that send nothing and SLOW ones that trickle a
request a byte a second, then, with all of them open, makes FRESH new
requests for /api/meta one after another: each must answer 200 within a
second.  Prints one line per check ("ok ..." or "FAIL ...")."""
import resource
import socket
import sys
import threading
import time

host, port, n_idle, n_slow, n_fresh = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
want = n_idle + n_slow + n_fresh + 64
if soft < want:
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(want, soft)), hard))

held = []
opened = 0
for _ in range(n_idle):
    try:
        held.append(socket.create_connection((host, port), timeout=5))
        opened += 1
    except OSError as e:
        print("FAIL idle connection %d: %s" % (opened, e))
        break
print(("ok" if opened == n_idle else "FAIL") + " %d idle connections open" % opened)

stop = threading.Event()
slow_socks = []
for _ in range(n_slow):
    s = socket.create_connection((host, port), timeout=5)
    slow_socks.append(s)
request = b"GET /api/meta HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 200 + b"\r\n\r\n"


def trickle():
    i = 0
    while not stop.is_set() and i < len(request) - 4:  # never the end of the headers
        for s in slow_socks:
            try:
                s.send(request[i:i + 1])
            except OSError:
                pass
        i += 1
        stop.wait(1.0)


t = threading.Thread(target=trickle, daemon=True)
t.start()
time.sleep(2.5)  # the slow ones have sent a few bytes each


def fresh_get():
    t0 = time.monotonic()
    try:
        s = socket.create_connection((host, port), timeout=1)
        s.settimeout(max(0.05, 1 - (time.monotonic() - t0)))
        s.sendall(b"GET /api/meta HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        data = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
        s.close()
    except OSError as e:
        return None, time.monotonic() - t0, str(e)
    status = data.split(b" ", 2)[1].decode() if data.startswith(b"HTTP/1.") else "?"
    return status, time.monotonic() - t0, data[:80]


worst, good = 0.0, 0
for k in range(n_fresh):
    status, took, info = fresh_get()
    worst = max(worst, took)
    if status == "200" and took < 1.0:
        good += 1
    else:
        print("FAIL fresh client %d: status %s after %.3f s (%s)" % (k, status, took, info))
print(("ok" if good == n_fresh else "FAIL") + " %d of %d fresh clients got 200 within 1 s (slowest %.3f s) with %d idle and %d slow open"
      % (good, n_fresh, worst, opened, n_slow))

# the idle ones are still connected (not dropped to make room)
alive = 0
for s in held:
    s.setblocking(False)
    try:
        alive += s.recv(1) != b""  # b"" = closed by the server
    except BlockingIOError:
        alive += 1
    except OSError:
        pass
print(("ok" if alive == opened else "FAIL") + " %d of %d idle connections still open" % (alive, opened))
stop.set()
for s in held + slow_socks:
    s.close()
