# mypy: ignore-errors
# (MicroPython code, run by the unix port: not part of the typed host package.)
# The firmware's native code charged as native code (issue 22).
#
# The virtual clock (vclock.py) charges each stretch of firmware work at one
# factor, the bytecode's (GENERIC x FLASH_WAIT, 162.5). The firmware's
# ``@micropython.native`` methods (the readers' polling path in scanner.py and
# pn532.py) are machine code on the chip, which the rp2 port ran at 57-68 x
# the unix port's time on the rules engine (x 1.3 for flash wait states:
# board.C_FACTOR, 88.4), against 83-170 for bytecode: charged as bytecode they
# are overstated about 1.6-2x. Here each native method, and each bytecode
# method or function native code calls, is wrapped: the wrapper switches the
# clock's factor to its method's kind for the method's run and back after it
# (VClock.switch: the stretch so far charged at the kind that ran it), so that
# every stretch is charged at the factor of the code that ran it, as
# host/tractor_table/sim/engine/mpy/kindtime_mp.py splits a rules check.
#
# Which methods: the host reads the firmware's source (board/kinds.py:
# fw_kinds) and writes them into ``fwkinds.py`` beside the launcher:
# KINDS = ((module, class or "", name, positional arity, 1 native / 0
# bytecode, the defaults of the last parameters), ...). The wrappers are made at power-up, before the models' heap
# is measured (they are the model's, not the firmware's heap), as plain
# functions with their target in a preallocated list and their constants as
# default arguments: a wrapped call allocates nothing (the polling path
# allocates nothing: tests/readers). They are put in place once the firmware
# loaded the module (install(), at each sleep until every module is done).
# A wrapper's own cost is measured (VClock.calibrate_switch in a tight loop,
# VClock._situ_sw where the firmware runs: the larger) and taken off each
# switch's stretch, as a model call's is. The check that the wrappers neither
# add nor take off: TT_KINDS_SAME=1 wraps as usual but charges native code at
# the bytecode factor (one hand, bots, load 4-6: 43.9 and 45.1 s of firmware
# CPU against 43.9 and 43.0 s unwrapped, TT_NOKINDS=1: within the run-to-run
# spread).
import sys

import micropython


def _make(n, c, h, i, F, dflt=()):
    # a wrapper of a method (or function) of n positional arguments, the last
    # len(dflt) with those defaults, whose target is h[i], run at factor F;
    # made from source (the arity varies), a plain function: no closure, no
    # argument tuple (a call allocates nothing)
    k = n - len(dflt)
    params = ["a%d" % j for j in range(k)] + ["a%d=_d%d" % (k + j, j) for j in range(len(dflt))]
    args = ", ".join("a%d" % j for j in range(n))
    env = {"_c": c, "_h": h, "_i": i, "_F": F, "micropython": micropython}
    for j in range(len(dflt)):
        env["_d%d" % j] = dflt[j]
    src = (
        "@micropython.native\n"
        "def w(%s_c=_c, _h=_h, _i=_i, _F=_F):\n"
        " p = _c.switch(_F)\n"
        " try:\n"
        "  return _h[_i](%s)\n"
        " finally:\n"
        "  _c.switch(p)\n"
    ) % ("".join(x + ", " for x in params), args)
    exec(src, env)
    return env["w"]


class _Probe:
    def nothing(self):
        pass


class Kinds:
    """The wrappers of KINDS on ``clock``: native methods at ``native``,
    the rest at the clock's bytecode factor."""

    def __init__(self, clock, native, kinds):
        self.clock = clock
        self.kinds = kinds
        self.targets = [None] * len(kinds)
        self.wrappers = []
        for i in range(len(kinds)):
            k = kinds[i]
            self.wrappers.append(_make(k[3], clock, self.targets, i, native if k[4] else clock.byte_factor, k[5]))
        self.todo = []
        for k in kinds:
            if k[0] not in self.todo:
                self.todo.append(k[0])
        self.wrapped = 0
        # the wrappers' own cost, on a method doing nothing, the same way
        probe = _Probe()
        h = [_Probe.nothing]
        w = _make(1, clock, h, 0, clock.byte_factor)
        clock.calibrate_switch(w, probe)

    def install(self):
        """Wrap the methods of the modules loaded since the last call."""
        if not self.todo:
            return
        for m in self.todo[:]:
            mod = sys.modules.get(m)
            if mod is None:
                continue
            self.todo.remove(m)
            for i in range(len(self.kinds)):
                k = self.kinds[i]
                if k[0] != m:
                    continue
                owner = getattr(mod, k[1]) if k[1] else mod
                self.targets[i] = owner.__dict__[k[2]]
                setattr(owner, k[2], self.wrappers[i])
                self.wrapped += 1
