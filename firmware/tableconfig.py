# The table's rule options, read from table.cfg.
#
# table.cfg is the key=value file that `tractor-table deploy` writes next to
# the firmware (its own keys: firmware, rules, pinmap, cards, decks, ...). The
# keys below, when present, set the rules the table plays by (docs/rules.md §0 option
# names and values; the defaults are the classic game's):
#
#   permanent_twos=0|1         same_shape_only=0|1       kitty_requires_trump=0|1
#   allow_self_override=0|1    hand_scan=0|1             throw_penalty=N
#   kitty_multiplier=structure|linear|cards
#   level_table=classic|lianzhong|qq|tournament|onedeck|xuwen
#   level_ladder=full|tournament                        must_play=2,A (ranks)
#   first_dealer=first|final   no_bid=nt|kitty            revoke=flag|forfeit
#   partners=fixed|called
#
# and two for the readers: reader_gain=normal|low (the PN532's receiver gain,
# 38 or 33 dB: low shrinks the read zone; docs/readers.md), and
# reader_groups=pairs|all|one (how many readers poll at once: pairs, the
# default, stays within USB's 500 mA; all four draw more: hardware/README.md).
#
# partners=called with revoke=forfeit is not played: reported as a problem,
# the table then plays revoke=flag.
# Unknown keys are ignored (they are deploy's).
import drules_hand as DH

RANKS = "23456789TJQKA"

_KM = ("structure", "linear", "cards")
_LT = ("classic", "lianzhong", "qq", "tournament", "onedeck", "xuwen")
_LL = ("full", "tournament")
_FD = ("first", "final")
_NB = ("nt", "kitty")
_RV = ("flag", "forfeit")
_PT = ("fixed", "called")


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


class Options:
    """What a configuration asks of the table: the TableRules keyword
    arguments, hand_scan, throw_penalty, and the problems found (strings)."""

    def __init__(self, cfg):
        self.problems = []
        self.rules = {}
        self.hand_scan = self._flag(cfg, "hand_scan", False)
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
        self.throw_penalty = 0
        tp = cfg.get("throw_penalty")
        if tp is not None:
            try:
                self.throw_penalty = int(tp)
            except ValueError:
                self.problems.append("throw_penalty: not a number: %s" % tp)
        self.rules["throw_penalty"] = self.throw_penalty
        for name in ("permanent_twos", "same_shape_only", "kitty_requires_trump", "allow_self_override"):
            if name in cfg:
                self.rules[name] = self._flag(cfg, name, name == "allow_self_override")
        self._choice(cfg, "kitty_multiplier", _KM, (0, 1, 2))  # drules.KM_STRUCTURE, KM_LINEAR, KM_CARDS
        self._choice(cfg, "level_table", _LT, (DH.LT_CLASSIC, DH.LT_LIANZHONG, DH.LT_QQ, DH.LT_TOURNAMENT, DH.LT_ONEDECK, DH.LT_XUWEN))
        self._choice(cfg, "level_ladder", _LL, (DH.LL_FULL, DH.LL_TOURNAMENT))
        self._choice(cfg, "first_dealer", _FD, (DH.FD_FIRST, DH.FD_FINAL))
        mp = cfg.get("must_play", "")
        if mp:
            mask = 0
            tour = self.rules.get("level_ladder") == DH.LL_TOURNAMENT
            for r in mp.split(","):
                r = r.strip().upper()
                i = RANKS.find(r)
                if len(r) != 1 or i < 0:
                    self.problems.append("must_play: not a rank: %s" % r)
                elif tour and i not in (0, 3, 8, 9, 10, 11, 12):
                    # a climb on 2 5 T J Q K A would pass it: no side can stop there
                    self.problems.append("must_play: %s is not on the tournament ladder (2 5 T J Q K A)" % r)
                else:
                    mask |= 1 << i
            self.rules["must_play"] = mask
        self._choice(cfg, "no_bid", _NB, (DH.NB_NT, DH.NB_KITTY))
        self._choice(cfg, "revoke", _RV, (0, 1))  # TableRules(revoke=): 0 flag, 1 forfeit
        self._choice(cfg, "partners", _PT, (0, 1))  # TableRules(partners=): 0 fixed, 1 called
        if self.rules.get("partners") == 1 and self.rules.get("revoke") == 1:
            self.problems.append("partners=called with revoke=forfeit: not played (revoke=flag)")
            self.rules["revoke"] = 0

    def _flag(self, cfg, name, default):
        v = cfg.get(name)
        if v is None:
            return default
        if v in ("1", "true", "yes", "on"):
            return True
        if v in ("0", "false", "no", "off"):
            return False
        self.problems.append("%s: not 0 or 1: %s" % (name, v))
        return default

    def _choice(self, cfg, name, names, values):
        v = cfg.get(name)
        if v is None:
            return
        for i in range(len(names)):
            if names[i] == v:
                self.rules[name] = values[i]
                return
        self.problems.append("%s: unknown value %s" % (name, v))
