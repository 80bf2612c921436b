# The layout of every game event (events.py defines the kinds; the table core
# writes each event by position): the names of its fields, in the order the
# link carries them after the kind.
#
# The table never imports this module (names compiled from source cost heap,
# and the table writes its events by position, as it writes its snapshot:
# snaplayout.py). The host decodes every event by these names, in one module
# (tractor_table.events, whose typed values have exactly these fields), and
# docs/firmware.md's table of kinds lists them (tests/foundation checks both).
# Change a kind's fields here, where the table core writes them, in
# docs/firmware.md's table, and nowhere else.
#
# The notation of one kind's fields, space separated, in wire order:
#   name          one int
#   name:k        the k-th int of the tuple `name` (the levels: per side, or
#                 per seat with partners = "called")
#   [ ... ]       fields only some events carry (partners = "called": the
#                 levels of seats 2 and 3), at the end, all or none
#   name*         the rest of the event: card ids (copy*54 + face), always last
# accepted and first_hand are 0/1 flags.
import events as E

# Each kind's name, indexed by its number (events.HAND_START ... UNDO, lower
# case): the host's EventKind (tractor_table.vocab.enums checks the two agree).
# Here, not in events.py, which the table loads: 1.4 KB of its heap on the
# unix port for names only the host reads (docs/firmware.md, "Heap").
NAMES = (
    "?",
    "hand_start",
    "bid",
    "trump",
    "redeal",
    "kitty",
    "play",
    "reject",
    "challenge",
    "forced",
    "trick",
    "audit",
    "hand_end",
    "revoke",
    "scan",
    "forfeit",
    "kitty_up",
    "call",
    "partner",
    "undo",
)

LAYOUT = (
    (E.HAND_START, "hand_no dealer decks levels:0 levels:1 first_hand [levels:2 levels:3]"),
    (E.BID, "seat accepted reason cards*"),
    (E.TRUMP, "trump declarer dealer"),
    (E.REDEAL, "hand_no"),
    (E.KITTY, "dealer points cards*"),
    (E.PLAY, "trick seat cards*"),
    (E.REJECT, "trick seat reason cards*"),
    (E.CHALLENGE, "trick seat accepted cards*"),
    (E.FORCED, "trick leader penalty cards*"),
    (E.TRICK, "trick winner points attackers_score"),
    (E.AUDIT, "trick seat reason rules_reason"),
    (
        E.HAND_END,
        "attackers_score kitty_points multiplier bonus next_dealer levels:0 levels:1 match_winner"
        " [levels:2 levels:3]",
    ),
    (E.REVOKE, "trick seat earlier_trick rules_reason"),
    (E.SCAN, "seat cards*"),
    (E.FORFEIT, "trick seat"),
    (E.KITTY_UP, "dealer cards*"),
    (E.CALL, "dealer face"),
    (E.PARTNER, "trick partner attackers_score"),
    (E.UNDO, "trick seat cards*"),
)
