"""``tractor-table club serve`` as its own process, for the club's tests (a module
of its own, not conftest: two test folders' conftest modules share one name)."""

from __future__ import annotations

import signal
import subprocess
import sys
import time


class ServerProc:
    """``tractor-table club serve --db URL`` as its own process (kill -9 is real)."""

    def __init__(self, url: str, port: int | None = None, offline_s: float = 30.0,
                 extra: tuple[str, ...] = ()) -> None:
        from tractor_table.club.pg import free_port

        self.db = url
        self.port = port or free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None
        self.offline_s = offline_s
        self.extra = extra

    def start(self) -> ServerProc:
        import httpx

        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tractor_table.cli", "club", "serve", "--db", self.db,
             "--port", str(self.port), "--offline-after", str(self.offline_s), *self.extra], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                err = self.proc.stderr.read().decode() if self.proc.stderr else ""
                raise RuntimeError(f"club serve exited: {err}")
            try:
                if httpx.get(self.base + "/healthz", timeout=2).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise RuntimeError("club serve did not answer within 60 s")

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()
