# Time by kind for the device engine's checks (issue 21): how much of a check's
# time on the unix port is spent in native code (@micropython.native methods)
# and how much in bytecode, so that each part is scaled to an RP2040 by its own
# factor (bench/rp2040.py: native code and bytecode do not slow down alike on
# the chip). Runs under MicroPython with firmware/ on the path; used by
# adversary_mp.py and bench/device_rules_mp.py.
#
# How: the check is timed plain (the median of R calls: T); then every method
# of the engine is wrapped, each wrapper charging the time since the last
# switch to the kind running until then (the caller's) and switching to its
# method's kind (native code calls bytecode methods and back: each stretch is
# charged to the code that ran it), and the check is timed again (R calls: the
# median total T' and native part N'). The wrappers' own cost (T' - T) falls
# on both kinds, as their calls do (each wrapper's time before its switch is
# its caller's, after it its method's), so the plain time is split in the
# same proportion:
#   native = T * N' / T', bytecode = T - native.
# Checked against the rp2 port's own times (bench/rp2040.py, TIME_BY_KIND).
# The wrappers allocate (their argument tuples); the plain timing does not.
# The wrappers are made once, by setup, not for each check: closures made per
# check were garbage the runner's heap piled up between its collections, and
# each bytecode method whose frame is over 11 words takes its frame from that
# heap on every call (a gc_alloc that scans from the lowest free block): over
# the bench's 150 bot hands they made the plain timing of later checks 2-7x
# slow (hand-1032's trick of pairs: 20-30 us alone, 100-190 us in the bench;
# issue 21, branch worst3).
import time

_st: list = [0, 0, 0, 0]  # type: ignore[type-arg]  # [native µs, bytecode µs, the kind running (1 native), the last switch]
_names: list = []  # type: ignore[type-arg]
_saved: list = []  # type: ignore[type-arg]
_kinds: list = []  # type: ignore[type-arg]
_wrapped: list = []  # type: ignore[type-arg]  # the wrappers, made once (setup): none is made per check


def _wrap(f, kind: int):  # type: ignore[no-untyped-def]
    ticks = time.ticks_us  # type: ignore[attr-defined]  # MicroPython's time
    diff = time.ticks_diff  # type: ignore[attr-defined]
    st = _st

    def w(*a):  # type: ignore[no-untyped-def]
        now = ticks()
        st[1 - st[2]] += diff(now, st[3])
        st[3] = now
        prev = st[2]
        st[2] = kind
        r = f(*a)  # (no try: the checks raise nothing, and a native caller's unwinding must not meet one)
        now = ticks()
        st[1 - st[2]] += diff(now, st[3])
        st[3] = now
        st[2] = prev
        return r

    return w


def setup(cls: type, native: list, bytecode: list) -> None:  # type: ignore[type-arg]
    """The engine class cls, the names of its native methods and of its
    bytecode ones. Each is set on cls itself (the same function: where the
    lookup finds it first), so that every timing, plain or wrapped, looks it
    up the same way."""
    _names[:] = []
    _saved[:] = []
    _kinds[:] = []
    _wrapped[:] = []
    for kind, names in ((1, native), (0, bytecode)):
        for n in names:
            f = getattr(cls, n, None)
            if f is not None and n not in _names:
                setattr(cls, n, f)
                _names.append(n)
                _saved.append(f)
                _kinds.append(kind)
                _wrapped.append(_wrap(f, kind))
    _names.append(cls)


def _on() -> None:
    cls = _names[-1]
    for i in range(len(_saved)):
        setattr(cls, _names[i], _wrapped[i])


def _off() -> None:
    cls = _names[-1]
    for i in range(len(_saved)):
        setattr(cls, _names[i], _saved[i])


def _median(ts: list) -> float:  # type: ignore[type-arg]
    ts.sort()
    n = len(ts)
    return float(ts[n // 2] if n % 2 else (ts[n // 2 - 1] + ts[n // 2]) / 2)


def split(fn, R: int, plain: float) -> tuple:  # type: ignore[no-untyped-def, type-arg]
    """(native µs, bytecode µs) of fn() whose plain median time is plain."""
    if not _saved:
        return 0.0, float(plain)
    ticks = time.ticks_us  # type: ignore[attr-defined]
    diff = time.ticks_diff  # type: ignore[attr-defined]
    tot = []
    nat = []
    _on()
    try:
        for _ in range(R):
            _st[0] = 0
            _st[1] = 0
            _st[2] = 0  # the caller (the runner) is bytecode
            t0 = ticks()
            _st[3] = t0
            fn()
            t1 = ticks()
            tot.append(diff(t1, t0))
            nat.append(_st[0])
    finally:
        _off()
    t1 = _median(tot)
    n1 = _median(nat)
    native = n1 * plain / t1 if t1 > 0 else 0
    if native > plain:
        native = plain
    return float(native), float(plain - native)
