# The rule options table.cfg may set (docs/rules.md §0), as the table reads them.
#
# GENERATED from shengji.rules.OPTIONS by `make rules` -- do not edit;
# tests/foundation/test_rules_schema.py fails when this file and the schema differ.
#
# One row per option, in the schema's order (the order of the rules digest that
# the table sends in its WELCOME and its snapshot, docs/protocol.md):
#   (name, kind, values, default device value)
# kind INT: values (lowest, highest or -1 for no bound, step); FLAG: (), 0 or 1;
# CHOICE: the value names, a value's device number its index (the engine's
# constants: drules.KM_*, drules_hand.LT_*, LL_*, NB_*, FD_*; TableRules'
# partners and revoke); LEVELS: ranks 2..A, a bit mask (bit 0: 2).
# Loaded by tableconfig.py at start and dropped with it; the device-engine
# runners (judge_mp.py) read it too.
try:
    from micropython import const
except ImportError:

    def const(x):  # type: ignore[no-redef]
        return x


INT = const(0)
FLAG = const(1)
CHOICE = const(2)
LEVELS = const(3)

OPTIONS = (
    ("decks", INT, (1, 4, 1), 2),  # docs/rules.md §1
    ("permanent_twos", FLAG, (), 0),  # docs/rules.md §2
    ("same_shape_only", FLAG, (), 0),  # docs/rules.md §6.3
    ("throw_penalty", INT, (0, -1, 5), 0),  # docs/rules.md §5.2
    ("kitty_multiplier", CHOICE, ("structure", "linear", "cards"), 0),  # docs/rules.md §8.3
    ("kitty_requires_trump", FLAG, (), 0),  # docs/rules.md §8.3
    ("level_table", CHOICE, ("classic", "lianzhong", "qq", "tournament", "onedeck", "xuwen"), 0),  # docs/rules.md §8.4
    ("level_ladder", CHOICE, ("full", "tournament"), 0),  # docs/rules.md §8.6
    ("must_play", LEVELS, (), 0),  # docs/rules.md §8.6
    ("allow_self_override", FLAG, (), 1),  # docs/rules.md §8.1
    ("no_bid", CHOICE, ("nt", "kitty"), 0),  # docs/rules.md §8.1
    ("first_dealer", CHOICE, ("first", "final"), 0),  # docs/rules.md §8.1
    ("partners", CHOICE, ("fixed", "called"), 0),  # docs/rules.md §9
    ("hand_scan", FLAG, (), 0),  # docs/rules.md §10
    ("revoke", CHOICE, ("flag", "forfeit"), 0),  # docs/rules.md §10.3
)
