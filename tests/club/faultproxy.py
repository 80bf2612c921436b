"""A TCP proxy on loopback between clients and the club server, with faults to
order (modelled on a fault-injection proxy's controls): ``cut()`` closes every
connection and refuses new ones until ``heal()``; ``drop_replies(n)`` lets the
next n requests reach the server and closes the connection as the reply starts
(the server committed, the client never hears it); ``delay_s`` holds each
chunk back. Threads, not asyncio: the tests and the bench drive it from plain code."""

from __future__ import annotations

import socket
import threading
import time


class FaultProxy:
    def __init__(self, upstream_port: int, port: int = 0) -> None:
        self.upstream = ("127.0.0.1", upstream_port)
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", port))
        self.sock.listen(256)
        self.port = self.sock.getsockname()[1]
        self.base = f"http://127.0.0.1:{self.port}"
        self.lock = threading.Lock()
        self.conns: set[socket.socket] = set()
        self.is_cut = False
        self._drop = 0
        self.dropped = 0
        self.delay_s = 0.0
        self.closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def cut(self) -> None:
        with self.lock:
            self.is_cut = True
            conns, self.conns = self.conns, set()
        for c in conns:
            _close(c)

    def heal(self) -> None:
        with self.lock:
            self.is_cut = False

    def drop_replies(self, n: int) -> None:
        with self.lock:
            self._drop += n

    def close(self) -> None:
        self.closed = True
        self.cut()
        _close(self.sock)

    def _accept(self) -> None:
        while not self.closed:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            with self.lock:
                cut = self.is_cut
            if cut:
                _close(c)
                continue
            try:
                u = socket.create_connection(self.upstream, timeout=5)
                u.settimeout(None)
            except OSError:
                _close(c)
                continue
            with self.lock:
                self.conns |= {c, u}
            threading.Thread(target=self._pump, args=(c, u, False), daemon=True).start()
            threading.Thread(target=self._pump, args=(u, c, True), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket, reply: bool) -> None:
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                if reply:
                    with self.lock:
                        drop = self._drop > 0
                        if drop:
                            self._drop -= 1
                            self.dropped += 1
                    if drop:
                        break
                if self.delay_s:
                    time.sleep(self.delay_s)
                dst.sendall(data)
        except OSError:
            pass
        finally:
            _close(src)
            _close(dst)
            with self.lock:
                self.conns -= {src, dst}


def _close(s: socket.socket) -> None:
    try:
        s.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    try:
        s.close()
    except OSError:
        pass
