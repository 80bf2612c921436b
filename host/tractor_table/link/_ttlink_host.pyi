# Types of firmware/ttlink_host.py, the host's end of the link (HostLink and
# Record), as the host sees it (loaded by tractor_table.link, exported as
# tractor_table.link.ttlink_host). tests/link/test_host_serial.py checks that
# every name here exists there with the same parameters, and that every public
# function and class there is here.
from collections.abc import Callable
from typing import Any

from ._ttlink import Timing, _Link

HANDSHAKE: int
INCOMPATIBLE: int
HELLO_MAX: int

class Record:
    base: int
    base_hash: int
    base_data: bytes | None
    events: list[list[Any]]
    def __init__(self) -> None: ...
    @property
    def count(self) -> int: ...
    @property
    def head(self) -> int: ...
    def hash_at(self, i: int) -> int | None: ...
    def append(self, h: int, ev: list[Any]) -> None: ...
    def truncate(self, n: int) -> None: ...
    def reset(self, count: int, head: int, data: bytes | None) -> None: ...

class HostLink(_Link):
    version: str
    rules_id: str
    record: Record
    device: list[Any] | None
    boot_id: int | None
    synced: bool
    def __init__(
        self,
        now: int,
        rand: Callable[[], int],
        version: str,
        rules_id: str,
        record: Record | None = ...,
        timing: Timing | None = ...,
    ) -> None: ...
    def start(self, now: int) -> None: ...
    def lost(self, why: str) -> None: ...
    def push_snapshot(self, data: bytes, count: int, head: int) -> int: ...
    def request_snapshot(self) -> None: ...
