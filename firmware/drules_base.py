# Device rules engine: the state every part of drules.Engine shares.
#
# drules.Engine is assembled from parts (drules_play, drules_match,
# drules_ladder), each its own module so that MicroPython compiles it in a
# small heap. This base class only declares, for the type checker, the
# attributes that drules.Engine.__init__ creates and the methods one part
# calls on another; at run time it is empty (annotations without values
# create nothing), so it shadows nothing in MicroPython's depth-first lookup.

try:
    from array import array  # noqa: F401
    from typing import Any, Callable, Sequence  # noqa: F401
except ImportError:
    pass


class EngineBase:
    # options
    decks: int
    permanent_twos: bool
    same_shape_only: bool
    kitty_policy: int
    kitty_requires_trump: bool
    throw_penalty: int
    # the hand's order (drules.Engine.set_trump)
    level: int
    trump: int
    eff: bytearray
    pos: bytearray
    order: bytearray
    start: bytearray
    npos: bytearray
    pidx: bytearray
    # scratch
    _lc: bytearray
    _pc: bytearray
    _wc: bytearray
    _pr: bytearray
    _zf: bytes
    _pr2: bytearray
    units: bytearray
    nunits: int
    _lu: bytearray
    _nlu: int
    _bins: bytearray
    _nbins: int
    _best: int
    _cap: int
    nforced: int
    key: int
    _pmax: int
    _steps: int
    _floor: int
    _pad: int
    match_steps: int
    _vh: bytearray
    _vp: bytearray
    _qm: bytearray
    _qk: bytearray
    _qn: bytearray
    _ql: bytearray
    _tb: bytearray
    _a: bytearray
    _z: bytes
    _st: bytearray
    _sf: bytearray
    _n: bytearray
    _np: int
    _nd: int
    _dm: bytearray
    _dk: bytearray
    _dn: bytearray
    _db: bytearray
    _dl: bytearray
    _mon: bool
    _ns0: int
    nstates: int
    _nq: int
    _qs: bytearray
    _tot: bytearray
    _rs: bytearray
    _sb: bytearray
    _sl: bytearray
    _sc: bytearray
    _se: bytearray
    _memo: bytearray
    _u: bytearray
    _ub: bytearray
    _ng: int
    _ut: bytearray
    _fi: bytearray
    _ff: bytearray
    _lv: bytearray
    _li: "array[int]"
    # methods of one part that another calls
    lead_suit: "Callable[[Sequence[int]], int]"
    points: "Callable[[Sequence[int]], int]"
    decompose: "Callable[[Sequence[int]], int]"
    _count: "Callable[[Sequence[int], bytearray], None]"
    _decompose: "Callable[[bytearray, int, bytearray, int], int]"
    _t: "Callable[[bytearray, int, int, int], int]"
    _ladder: "Callable[[bytearray, bytearray, int], int]"
    _tpoly: "Callable[[bytearray, int, int, int], int]"
    _sweep: "Callable[[int, int, int, int, int], bool]"
    _look: "Callable[[int, int, int, int, int], int]"
    _remember: "Callable[[int, int], None]"
    _newgen: "Callable[[], None]"
    _memo_init: "Callable[[], None]"
    _sweep_init: "Callable[[], None]"
    _add: "Callable[[int, int, int], bool]"
    _sub: "Callable[[int, int, int], None]"
    _sets: "Callable[[], None]"
    _setsfit: "Callable[[int, int, int], bool]"
    _gmatch: "Callable[[], bool]"
    _pfit: "Callable[[], bool]"
    _place_init: "Callable[[], None]"
    _oracle: "Callable[[], None]"
    _psetup: "Callable[[bytearray, int, int], None]"
    _uzero: "Callable[[], None]"
    _urestore: "Callable[[], None]"
    _feasible: "Callable[[int, int], bool]"
    _greedy: "Callable[[int, int, int], bool]"
    _ungreedy: "Callable[[int], None]"
    _tail: "Callable[[int, int, int, int], bool]"
    _fits_at: "Callable[[int, int, int, int, int, int], bool]"
    _failed: "Callable[[], None]"
    _beaten: "Callable[[], bool]"
