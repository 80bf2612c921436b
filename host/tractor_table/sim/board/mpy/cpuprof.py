# mypy: ignore-errors
# (MicroPython code, run by the unix port: not part of the typed host package.)
# Where the firmware's CPU time goes on the board model: a profile by
# firmware function (bench/bench_board.py --profile FILE; the environment
# variable TT_CPUPROF names the file the board writes it to, as it stops).
#
# Every method of the firmware's classes (the modules in MODULES, and main.py's
# App) is wrapped once the module is loaded: the wrapper names the function
# that runs, and each stretch of firmware work the virtual clock charges
# (vclock.VClock.enter) is added to the innermost function running. A
# wrapper's own Python time is the model's (the clock is left and entered
# around it), so the figures add up to the clock's charge; each wrapped call
# is counted. Not for timing runs: the wrappers change the caches' state and
# the garbage collector's pace, and each wrapped call adds its caller a
# stretch (about 0.5 us of this port's time, x the bytecode factor): small
# functions called often look dearer. No bytes: the models allocate about
# 200 B a call of their own, and what leaked of it into the stretches hid the
# firmware's (the polling path allocates nothing: tests/readers,
# test_polling_path_allocates_nothing). The board runs with a heap of its own
# size (no chip cap) and a larger C stack (start.py).
import sys

MODULES = (
    "scanner", "pn532", "picoboard", "display", "ttlink", "ttlink_io", "persist", "table",
    "tablebase", "tablecall", "tabledeal", "tableforfeit", "tablefriend", "tablereveal", "tablerules",
    "tablescan", "tablesnap", "tabletrick", "tablehandend", "tablestart", "tableundo", "events", "tablerestore", "cardmap",
)


class Prof:
    def __init__(self, clock, path):
        self.clock = clock
        self.path = path
        self.f = open(path, "w")  # before littlefs is mounted at /
        self.stack = ["(top)"]
        self.cpu = {}  # label -> virtual us charged while it was innermost
        self.calls = {}
        self.done = set()
        self.classes = set()
        orig_enter = clock.enter
        orig_leave = clock.leave
        prof = self

        def enter(kind=0):
            if clock._depth == 0:
                top = prof.stack[-1]
                c0 = clock.cpu_us
                orig_enter(kind)
                prof.cpu[top] = prof.cpu.get(top, 0) + clock.cpu_us - c0
            else:
                orig_enter(kind)

        def leave():
            orig_leave()

        clock.enter = enter
        clock.leave = leave
        self._enter = enter
        self._leave = leave

    def _wrap(self, owner, name, f, label):
        prof = self
        enter = self._enter
        leave = self._leave
        clock = self.clock

        def w(*a, **k):
            call_us = clock.call_us
            clock.call_us = 0  # a wrapper is no call on the chip
            enter()
            prof.stack.append(label)
            prof.calls[label] = prof.calls.get(label, 0) + 1
            leave()
            clock.call_us = call_us
            try:
                return f(*a, **k)
            finally:
                clock.call_us = 0
                enter()
                prof.stack.pop()
                leave()
                clock.call_us = call_us

        try:
            setattr(owner, name, w)
        except (AttributeError, TypeError) as e:
            print("cpuprof: %s not wrapped: %r" % (label, e))

    def install(self, mod_globals=None):
        """Wrap the methods of every firmware class loaded now (once each)."""
        found = []
        for m in MODULES:
            mod = sys.modules.get(m)
            if mod is not None and m not in self.done:
                self.done.add(m)
                found.append((m, mod.__dict__))
        if mod_globals is not None and "main" not in self.done:
            self.done.add("main")
            found.append(("main", mod_globals))
        for m, d in found:
            for cname, cls in list(d.items()):
                if not isinstance(cls, type):
                    continue
                try:
                    if cls.__dict__.get("__module__") not in (m, "__main__"):
                        continue  # a built-in type, or another module's class
                except AttributeError:
                    continue
                if id(cls) in self.classes:
                    continue
                self.classes.add(id(cls))
                for name in dir(cls):
                    if name.startswith("__"):
                        continue
                    try:
                        f = cls.__dict__[name]
                    except (KeyError, AttributeError):
                        continue
                    t = type(f).__name__
                    if t in ("function", "closure"):
                        self._wrap(cls, name, f, "%s.%s.%s" % (m, cname, name))

    def write(self):
        rows = sorted(self.cpu.items(), key=lambda kv: -kv[1])
        total = self.clock.cpu_us
        f = self.f
        f.write("# label\tcpu_us\tcalls\t(total cpu_us %d)\n" % total)
        for k, v in rows:
            f.write("%s\t%d\t%d\n" % (k, v, self.calls.get(k, 0)))
        f.close()
