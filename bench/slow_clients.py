#!/usr/bin/python3
"""slow_clients.py: N slow clients from one address (make bench, section http).

Opens N connections from SOURCE to HOST:PORT, each sending a request line and then
one header byte every second without ever ending its headers (a trickle that resets
any idle timeout), for SECONDS; a connection the server closes is opened again at
most once a second. Prints "attempts N open_at_end N closed_by_server N".

Usage: slow_clients.py SOURCE HOST PORT N SECONDS
"""
import resource
import selectors
import socket
import sys
import time


def main():
    source, host, port, n, seconds = sys.argv[1], sys.argv[2], int(sys.argv[3]), \
        int(sys.argv[4]), float(sys.argv[5])
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, n + 256)), hard))
    sel = selectors.DefaultSelector()
    conns = {}
    attempts = closed = 0
    end = time.monotonic() + seconds
    next_tick = 0.0
    while time.monotonic() < end:
        now = time.monotonic()
        if now >= next_tick:
            next_tick = now + 1.0
            while len(conns) < n:
                s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                s.setblocking(False)
                attempts += 1
                try:
                    s.bind((source, 0))
                    s.connect_ex((host, port))
                except OSError:
                    s.close()
                    break
                conns[s.fileno()] = [s, 0]
                sel.register(s, selectors.EVENT_READ)
            for fd, (s, sent) in list(conns.items()):
                data = b"GET /api/v1/health HTTP/1.1\r\nHost: x\r\nX-Slow: " if sent == 0 \
                    else b"a"
                try:
                    s.send(data)
                    conns[fd][1] += 1
                except (BlockingIOError, InterruptedError):
                    pass
                except OSError:
                    sel.unregister(s)
                    s.close()
                    del conns[fd]
                    closed += 1
        for key, _ in sel.select(timeout=0.1):
            s = key.fileobj
            try:
                data = s.recv(4096)
            except (BlockingIOError, InterruptedError):
                continue
            except OSError:
                data = b""
            if not data:
                sel.unregister(s)
                s.close()
                conns.pop(key.fd, None)
                closed += 1
    print("attempts %d open_at_end %d closed_by_server %d" % (attempts, len(conns), closed))


if __name__ == "__main__":
    main()
