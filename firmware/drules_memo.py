# Device rules engine, part of drules.Engine (see drules.py for the API): for
# the placement oracle (drules_place.py), the greedy first tries (a unit's
# runs on top of the earlier units' placement; a trick's match) and the
# polynomial question _pfit (t on the oracle, _tpoly, is drules_sweep.py's: it
# asks the search at once). The table of the sweep's states that
# failed once (_newgen, _look, _remember) is drules_sweep.py's: only the
# search reads it, so it comes with the search (issue 21).

import micropython
from micropython import const

# (the type checker finds the installed `micropython` package, Adafruit
# Blinka's, which types @micropython.viper as NoReturn: each viper method
# that EngineBase declares is marked for it, reportIncompatibleMethodOverride)

from drules_base import EngineBase

try:
    from typing import Any, Sequence  # noqa: F401
except ImportError:
    pass

_NPOS = const(18)
_GS = const(32)  # runs one greedy step may add


class Memo(EngineBase):
    """The greedy first try; mixed into drules.Engine."""

    def _memo_init(self):
        # type: () -> None
        # (the table of failed states, _memo, comes with the sweep:
        # drules_sweep._sweep_init)
        self._gst = bytearray(3 * _GS)
        self._ng = 0

    # ------------------------------------------------------ greedy first try

    # native (issue 21, 2026-12-06): the slow follows' questions are mostly
    # answered here (6-8 calls a check, each trying _add at position after
    # position); as bytecode it held about a tenth of their time by kind
    # (x170 on the chip against x68), 4 ms of adv-39's; native it holds
    # 704 B of the chip's heap, less 153 B of bytecode (paid for by the
    # engine's smaller buffers, _NPOS 18); viper since 2026-12-07 (issue
    # 21: 716 B, as native, its ints and loads machine code: docs/firmware.md
    # "The viper emitter")
    @micropython.viper
    def _greedy(self, m: int, k: int, n: int) -> bool:  # pyright: ignore[reportIncompatibleMethodOverride]
        """Put n more parts (m, k) on top of the placement in self._u, each at
        the weakest place where it fits (n < 0: -n parts, each at the
        strongest; no search: False is no answer); they are noted in
        self._gst (self._ng of them) for _ungreedy."""
        # the placement changes: the faces _tail found left over by the
        # one before are no longer known (adv-2825-10115: a run of pairs
        # placed on a position with a choice of faces kept them, and a
        # later pair was let in on faces the run had taken)
        ptr8(self._vp)[9] = 0
        st = ptr8(self._st)
        gst = ptr8(self._gst)
        b = (m - 2) * _NPOS
        last = int(self._np) - k
        p = 0
        d = 1
        if n < 0:
            n = -n
            p = last
            d = -1
        ng = int(self._ng)
        while n:
            while p >= 0 and p <= last and (int(st[b + p]) < k or not self._add(p, m, k)):
                p += d
            if p < 0 or p > last or ng >= _GS:
                break  # (no answer: False, n > 0; one way out, for a smaller code)
            g = 3 * ng
            gst[g] = p
            gst[g + 1] = m
            gst[g + 2] = k
            ng += 1
            n -= 1
        self._ng = ng
        return n == 0

    def _ungreedy(self, mark):
        # type: (int) -> None
        """Take back the parts _greedy placed after the first `mark`."""
        gst = self._gst
        if self._ng > mark:
            self._vp[9] = 0  # the placement changes
        while self._ng > mark:
            self._ng -= 1
            g = 3 * self._ng
            self._sub(gst[g], gst[g + 1], gst[g + 2])

    def _gmatch(self):
        # type: () -> bool
        """The greedy try of _match_key: the part placed high at its lowest
        start, the other runs at the weakest places, the sets in the rest."""
        self._uzero()
        qm = self._qm
        qk = self._qk
        qn = self._qn
        self._ng = 0
        if not self._add(self._ql[0] - 1, qm[0], qk[0]):
            return False
        for t in range(1, self._nq):
            if qk[t] > 1 and not self._greedy(qm[t], qk[t], qn[t]):
                return False
        self._sets()
        return self._tail(0, 0, 0, 0)

    def _pfit(self):
        # type: () -> bool
        self._uzero()
        return self._feasible(0, 0)

