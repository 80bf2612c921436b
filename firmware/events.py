# Game events of the table core, as the link carries them.
#
# Every game event is a flat list `[kind, field, ...]` of small ints (never a
# dict: MicroPython dicts do not keep order, and the state hash is taken over
# the event's canonical JSON). Where an event carries cards they are the LAST
# fields, as card ids (copy*54 + face).
# Each kind's name and fields, by name, are in evlayout.py (which the table
# never loads; the host decodes every event by it, in tractor_table.events), and
# tabled in docs/firmware.md, "Game events"; docs/protocol.md links to it.
# Change a kind's fields only together with evlayout.py and that table.
#
# Every value here is shared with the host, which reads this very file
# (tractor_table.vocab) and defines none of them again.
#
# Dependencies: micropython.const only.
try:
    from micropython import const
except ImportError:  # CPython (tests, host tools)

    def const(x):  # type: ignore[no-redef]
        return x


# --- kinds -----------------------------------------------------------------
# [HAND_START, hand_no, dealer, decks, level_side0, level_side1, first_hand]
#   partners = "called": levels per seat, [.., level_seat0, level_seat1, first_hand,
#   level_seat2, level_seat3]
HAND_START = const(1)
# [BID, seat, accepted, reason, cards...]   a declaration tapped during the draw
BID = const(2)
# [TRUMP, trump, declarer, dealer]          end of the draw; trump 0-3 = S H D C, 4 = NT;
#                                           declarer -1 when nobody bid
TRUMP = const(3)
# [REDEAL, hand_no]                         nobody bid on the match's first hand
REDEAL = const(4)
# [KITTY, dealer, points, cards...]         the cards the dealer buried
KITTY = const(5)
# [PLAY, trick_no, seat, cards...]          an accepted play (lead or follow)
PLAY = const(6)
# [REJECT, trick_no, seat, reason, cards...] a play (or bid or burial) refused; the cards go back
REJECT = const(7)
# [CHALLENGE, trick_no, seat, accepted, cards...]  cards shown against a throw
CHALLENGE = const(8)
# [FORCED, trick_no, leader, penalty, cards...]    a failed throw: the cards that stand as the lead
FORCED = const(9)
# [TRICK, trick_no, winner, points, attackers_score]  (-1: partner unknown, partners = "called")
TRICK = const(10)
# [AUDIT, trick_no, seat, reason, rules_reason]  a rule broken, found when every hand is known;
#                                           rules_reason: the rules engine's code (0 for a throw)
AUDIT = const(11)
# [HAND_END, attackers_score, kitty_points, multiplier, bonus, next_dealer,
#  level_side0, level_side1, match_winner]  match_winner -1 while the match goes on
#   partners = "called": [.., level_seat0, level_seat1, match_winners, level_seat2,
#   level_seat3], match_winners a bit mask of seats (-1 none)
HAND_END = const(12)
# [REVOKE, trick_no, seat, earlier_trick, rules_reason]  a play proves an earlier follow broke §6
REVOKE = const(13)
# [SCAN, seat, cards...]                    hand_scan mode: a seat's whole hand, scanned after
#                                           the draw (the dealer's with the kitty)
SCAN = const(14)
# [FORFEIT, trick_no, seat]                 revoke = "forfeit": seat's revoke in trick trick_no
#                                           loses the hand for its side (HAND_END follows)
FORFEIT = const(15)
# [KITTY_UP, dealer, cards...]              no_bid = "kitty": nobody bid, the dealer turned the
#                                           kitty up in this order; the first card names trump
#                                           (the TRUMP event follows)
KITTY_UP = const(16)
# [CALL, dealer, face]                      partners = "called": the card the dealer named
#                                           (a face 0..53, not a card id), after the burial
CALL = const(17)
# [PARTNER, trick_no, partner, attackers_score]  partners = "called": the partner is known
#                                           (partner -1: the dealer plays alone); before it
#                                           TRICK's attackers_score is -1 (partner unknown)
PARTNER = const(18)
# [UNDO, trick_no, seat, cards...]          a long press took back the seat's last play
#                                           (those cards); the turn is the seat's again
UNDO = const(19)

# --- reasons (REJECT, BID, AUDIT) --------------------------------------------
OK = const(0)
OUT_OF_TURN = const(1)  # not this seat's turn to play
SEEN_TWICE = const(2)  # this card was already played (or buried) in this hand
COUNT = const(3)  # a follow of the wrong number of cards
MIXED_LEAD = const(4)  # a lead that spans effective suits
UNKNOWN_CARD = const(5)  # a tag that the card map does not know
WRONG_PHASE = const(6)  # cards or a button when the table does not expect them
BID_WEAK = const(7)  # a bid that is not stronger than the standing one
BID_CARDS = const(8)  # a bid not made of level cards or jokers of one kind
KITTY_COUNT = const(9)  # the dealer buried the wrong number of cards
REVOKE_FOLLOW = const(10)  # AUDIT: a follow that broke §6 (suit or structure)
THROW_FAILED = const(11)  # AUDIT: a throw that should have failed and was not challenged
CHALLENGE_FAILED = const(12)  # REJECT: the shown cards beat no unit of the throw
EMPTY = const(13)  # OK pressed with no cards tapped
READER_FAULT = const(14)  # a reader error (two cards, crosstalk)
NOT_HELD = const(15)  # hand_scan mode: a card that is not in this seat's scanned hand
BID_SELF = const(16)  # BID: a self-override with allow_self_override = false

# In words, as the display says them after the seat ("S1 seen twice"): at
# most 13 characters each, so that "S1 " and the reason fit the display's 16
# columns (tests/table/test_display_words.py); the host says the same words.
REASONS = (
    "ok",
    "out of turn",
    "seen twice",  # the card was already played or buried this hand
    "wrong count",  # a follow of the wrong number of cards
    "mixed suits",  # a lead that spans effective suits
    "unknown card",
    "not now",
    "bid too weak",
    "not a bid",
    "kitty count",  # the dealer buried the wrong number of cards
    "revoke",
    "bad throw",  # a throw that should have failed, not challenged
    "beats nothing",  # the challenger's cards beat no unit of the throw
    "no cards",
    "reader fault",
    "not in hand",  # hand_scan: not in the seat's scanned hand
    "no self-raise",  # a self-override where allow_self_override = false
)

# --- the link's application messages (main.py, enrollmode.py) ---------------
# The host sends [command, ...] in an APP frame: table.CMD_* (1-3) or one of
# these; the device answers [APP_REPLY, command, 0 ok / 1 refused, text].
APP_REPLY = const(100)
# [APP_STATE] asks for the display lines: answered [APP_LINES, line0, ..., line7]
APP_STATE = const(101)
APP_LINES = const(102)
# [APP_MAINTENANCE] stops the table for `tractor-table deploy` (main.py)
APP_MAINTENANCE = const(103)
# [APP_ENROLL, seat] / [APP_ENROLL, -1]: enroll mode at a seat (enrollmode.py),
# which sends the tags read there as [APP_TAG, seat, "uidhex"] (or
# [APP_TAG, seat, "", reason] for a reader error)
APP_ENROLL = const(104)
APP_TAG = const(105)
# [APP_READERS, down]: the seats whose reader does not answer, a bit per seat
# (bit s: seat s), sent whenever that changes (0: every reader answers again)
APP_READERS = const(106)

# --- sounds (the buzzer plays them; the virtual table prints them) ------------
SND_NONE = const(0)
SND_TAP = const(1)  # a card was taken
SND_OK = const(2)  # a play or bid was accepted
SND_ERROR = const(3)  # something was refused: look at the display
SND_TRICK = const(4)  # a trick is complete
SND_HAND = const(5)  # the hand is over

# --- buttons -----------------------------------------------------------------
BTN_OK = const(0)  # short press: end my play / commit my bid / end the draw (dealer)
BTN_UNDO = const(1)  # long press: take back the cards tapped since my last commit, or
#                       (none tapped) my last play while nothing followed it (tableundo.py)
BTN_CHALLENGE = const(2)  # double press: I challenge the throw on the table
