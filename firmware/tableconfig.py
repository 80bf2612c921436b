# The table's rule options, read from table.cfg.
#
# table.cfg is the key=value file that `tractor-table deploy` writes next to
# the firmware (its own keys: firmware, rules, pinmap, cards, decks, ...). The
# rule options (docs/rules.md §0: names, values, defaults) are the rows of
# ruleopts.py, generated from the host's schema (shengji.rules.OPTIONS) by
# `make rules`; each, when present, sets the rules the table plays by:
#
#   a flag: 0|1 (also true/false, yes/no, on/off)     a number: N
#   a choice: one of its names, e.g. level_table=tournament
#   a set of levels: ranks separated by commas, e.g. must_play=2,A
#
# and two for the readers: reader_gain=normal|low (the PN532's receiver gain,
# 38 or 33 dB: low shrinks the read zone; docs/readers.md), and
# reader_groups=pairs|all|one (how many readers poll at once: pairs, the
# default, stays within USB's 500 mA; all four draw more: hardware/README.md),
# and reader_dwell_ms=1..50 (a card counts when a second poll of its seat at
# least this long after the first sees it again; default the scanner's 20 ms:
# docs/readers.md), and reader_core=1|0 (the Pico polls its readers on its
# second core, beside the main loop: 1, the default with 1-2 decks; 0 on
# core 0, between the main loop's work, the default with 3-4 decks (the
# heap): docs/readers.md "The readers on core 1").
#
# partners=called with revoke=forfeit is not played: reported as a problem,
# the table then plays revoke=flag.
# Unknown keys are ignored (they are deploy's).
#
# Options.digest is the rules digest the table sends in its WELCOME and its
# snapshot (docs/protocol.md): every option's device value in ruleopts' order,
# joined by "." -- made once here at start, so the link only passes it on.
# Loaded at start and dropped after (main.configured_app), with ruleopts.
import drules_hand as DH
import ruleopts as O

RANKS = "23456789TJQKA"


def read(path):
    """The key=value lines of a file as a dict of strings ({} without the file)."""
    out = {}
    try:
        f = open(path)
    except OSError:
        return out
    try:
        for line in f:
            line = line.strip()
            if not line or line[0] == "#" or "=" not in line:
                continue
            k, v = line.split("=", 1)
            out[k.strip()] = v.strip()
    finally:
        f.close()
    return out


def off_ladder(mask, ladder):
    """The first rank of `mask` (bit 0: 2) a climb on `ladder` passes without
    stopping (no side can stop there), or -1 (docs/rules.md §8.6)."""
    if ladder != DH.LL_TOURNAMENT:
        return -1
    for i in range(13):
        if mask >> i & 1 and i not in DH._TLADDER:
            return i
    return -1


class Options:
    """What a configuration asks of the table: the TableRules keyword
    arguments (every option but decks and hand_scan), hand_scan,
    throw_penalty, the rules digest, and the problems found (strings).
    decks: the table's (its card map's), which a table.cfg does not change."""

    def __init__(self, cfg, decks=2):
        self.problems = []
        self.rules = {}
        vals = []
        for name, kind, names, default in O.OPTIONS:
            v = cfg.get(name)
            x = default
            if name == "decks":
                x = decks
            elif v is not None:
                x = self._value(name, kind, names, v, default)
            if kind == O.FLAG:
                x = bool(x)
            vals.append(x)
            if name != "decks" and name != "hand_scan":
                self.rules[name] = x
        r = self.rules
        bad = off_ladder(r.get("must_play", 0), r.get("level_ladder", 0))
        while bad >= 0:
            # a climb on 2 5 T J Q K A would pass it: played without it
            self.problems.append("must_play: %s is not on the tournament ladder (2 5 T J Q K A)" % RANKS[bad])
            r["must_play"] &= ~(1 << bad)
            bad = off_ladder(r["must_play"], r["level_ladder"])
        if r.get("partners") == 1 and r.get("revoke") == 1:
            self.problems.append("partners=called with revoke=forfeit: not played (revoke=flag)")
            r["revoke"] = 0
        i = _index("hand_scan")
        self.hand_scan = i >= 0 and bool(vals[i])
        self.throw_penalty = r.get("throw_penalty", 0)
        for i in range(len(vals)):
            n = O.OPTIONS[i][0]
            if n in r:
                vals[i] = r[n]  # as played (a problem's fallback)
        self.digest = ".".join([str(int(x)) for x in vals])
        # the readers' RxGain code (pn532.set_rx_gain), -1: the chip's default
        self.reader_gain = -1
        g = cfg.get("reader_gain", "normal")
        if g == "low":
            self.reader_gain = 4
        elif g != "normal":
            self.problems.append("reader_gain: %s is not normal or low" % g)
        # readers polled at once (scanner.GROUP_*: 2 pairs, 4 all, 1 one at a time)
        g = cfg.get("reader_groups", "pairs")
        self.reader_group = 4 if g == "all" else 1 if g == "one" else 2
        if g not in ("pairs", "all", "one"):
            self.problems.append("reader_groups: %s is not pairs, all or one" % g)
        # the dwell before a card seen once counts (scanner confirm_ms), -1: the
        # scanner's default. Never 0: one poll alone is never a play
        self.reader_dwell = -1
        d = cfg.get("reader_dwell_ms")
        if d is not None:
            if d.isdigit() and 1 <= int(d) <= 50:
                self.reader_dwell = int(d)
            else:
                self.problems.append("reader_dwell_ms: %s is not a number of ms from 1 to 50" % d)
        # the readers on the Pico's second core (picoboard.PicoBoard.readers_core1)
        # (a digit parsed, not compared as text: "0" and "1" would be two
        # names more in the chip's qstr pools, chip_qstrs.py)
        # the default: the second core with 1-2 decks; with 3-4 the heap has
        # no room for its 4 KiB stack within the 128 KiB budget (the board
        # model's 3-4 deck peak went 127.9 -> 135.2 KB: docs/performance.md)
        g = cfg.get("reader_core")
        self.reader_core = 1 if decks <= 2 else 0
        if g is not None:
            if g.isdigit() and int(g) < 2:
                self.reader_core = int(g)
            else:
                self.problems.append("reader_core: %s is not 1 (the second core) or 0" % g)

    def _value(self, name, kind, names, v, default):
        p = self.problems
        if kind == O.FLAG:
            if v in ("1", "true", "yes", "on"):
                return 1
            if v in ("0", "false", "no", "off"):
                return 0
            p.append("%s: not 0 or 1: %s" % (name, v))
        elif kind == O.CHOICE:
            for i in range(len(names)):
                if names[i] == v:
                    return i
            p.append("%s: unknown value %s" % (name, v))
        elif kind == O.LEVELS:
            mask = 0
            for r in v.split(","):
                r = r.strip().upper()
                if r == "10":
                    r = "T"
                i = RANKS.find(r)
                if not r:
                    continue
                if len(r) != 1 or i < 0:
                    p.append("%s: not a rank: %s" % (name, r))
                else:
                    mask |= 1 << i
            return mask
        else:
            try:
                n = int(v)
            except ValueError:
                p.append("%s: not a number: %s" % (name, v))
                return default
            lo, hi, step = names
            if n < lo or (hi >= 0 and n > hi) or (n - lo) % step:
                p.append("%s: %d is not %d%s%s" % (
                    name, n, lo, " to %d" % hi if hi >= 0 else " or more",
                    ", a multiple of %d" % step if step > 1 else ""))
                return default
            return n
        return default


def _index(name):
    for i in range(len(O.OPTIONS)):
        if O.OPTIONS[i][0] == name:
            return i
    return -1
