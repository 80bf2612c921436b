# Types of firmware/ttlink.py as the host sees it (loaded by tractor_table.link);
# the host's end, firmware/ttlink_host.py, is typed in _ttlink_host.pyi.
# tests/link/test_host_serial.py checks that every name here exists there
# with the same parameters, and that every public function and class there is here.
from collections.abc import Callable
from typing import Any

PROTO: int
MAX_LINE: int
MAX_EVENT: int
SNAP_CHUNK: int
RING_BYTES: int
HELLO: int
WELCOME: int
ANNOUNCE: int
PING: int
ACK: int
SYNC: int
EVENT: int
SNAPREQ: int
SNAP_BEGIN: int
SNAP_CHUNK_T: int
SNAP_DONE: int
APP: int
DOWN: int
UP: int
RTO_MIN: int

Timing = tuple[int, int, int, int]
Note = list[Any]

def dumps(obj: object) -> str: ...
def canonical(value: object) -> bytes: ...
def chain_hash(prev: int, event: list[Any]) -> int: ...
def encode_frame(sid: int, seq: int, ack: int, mtype: int, payload: object) -> bytes: ...
def decode_line(line: bytes) -> tuple[list[Any] | None, int]: ...

class LineReader:
    overlong: int
    def __init__(self, on_line: Callable[[bytes], object], size: int = ...) -> None: ...
    def feed(self, data: bytes) -> None: ...

class _Link:
    state: int
    sid: int
    rto_min: int
    rto_max: int
    ping_ms: int
    down_ms: int
    frames_in: int
    frames_out: int
    resent: int
    bad: int
    stale: int
    dups: int
    malformed: int
    bytes_out: int
    bytes_in: int
    def __init__(self, now: int, timing: Timing | None = ...) -> None: ...
    def feed(self, data: bytes, now: int) -> None: ...
    def take_output(self) -> bytes | None: ...
    def take_notes(self) -> list[Note]: ...
    def tick(self, now: int) -> None: ...
    def send_app(self, payload: list[Any]) -> None: ...
    def busy(self) -> bool: ...

class DeviceLink(_Link):
    boot_id: int
    fw_version: str
    rules_id: str
    table_uid: str
    rules_digest: str
    count: int
    head: int
    ring_size: int
    snapshot_source: Callable[[], tuple[bytes, int, int]] | None
    on_snapshot: Callable[[bytes, int, int], str] | None
    def __init__(
        self,
        now: int,
        boot_id: int,
        rand: Callable[[], int],
        fw_version: str,
        rules_id: str,
        ring: int = ...,
        timing: Timing | None = ...,
        snap_limit: int = ...,
        table_uid: str = ...,
        ring_bytes: int = ...,
    ) -> None: ...
    def add_event(self, ev: list[Any]) -> int: ...
    def restore(self, base: int, base_hash: int, events: Any) -> None: ...
    def hash_at(self, i: int) -> int | None: ...
