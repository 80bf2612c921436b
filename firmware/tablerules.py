# The device rules engine (drules.py, drules_hand.py) behind the narrow
# interface that the table core asks (see the top of table.py).
#
# The table speaks in card lists by seat; the engine wants face-count arrays
# and plays in play order. This adapter converts, keeping its own scratch
# buffers so that a check allocates little. It holds no rule of its own:
# every verdict is the engine's.
import drules as D
import drules_hand as DH


class TableRules:
    def __init__(
        self,
        decks=2,
        permanent_twos=False,
        same_shape_only=False,
        kitty_multiplier=D.KM_STRUCTURE,
        kitty_requires_trump=False,
        throw_penalty=0,
        level_table=DH.LT_CLASSIC,
        level_ladder=DH.LL_FULL,
        must_play=0,
        allow_self_override=True,
        no_bid=DH.NB_NT,
        first_dealer=DH.FD_FIRST,
        revoke=0,
        partners=0,
    ):
        self.decks = decks
        self.engine = D.Engine(
            decks,
            permanent_twos,
            same_shape_only,
            kitty_multiplier,
            kitty_requires_trump,
            throw_penalty,
        )
        self.level_table = level_table
        self.level_ladder = level_ladder
        self.must_play = must_play
        self.allow_self_override = allow_self_override
        self.no_bid = no_bid
        self.first_dealer = first_dealer
        # revoke (RULES.md section 10): 0 "flag" (reported), 1 "forfeit" (the
        # hand is lost); the table core plays it (tabletrick.py, tableforfeit.py)
        self.revoke = revoke
        # partners (RULES.md section 9): 0 "fixed", 1 "called" (find-a-friend,
        # the table core plays it: tablefriend.py, settling by settle_seats)
        self.partners = partners
        self._hands = [
            bytearray(D.FACES),
            bytearray(D.FACES),
            bytearray(D.FACES),
            bytearray(D.FACES),
        ]
        self._forced = bytearray(54 * 4)
        self._order = [(), (), (), ()]
        self._settled = [0, 0, 0, -1]
        # declare(): the last bid was refused as a self-override (its reason)
        self.refused_self = False

    def begin_hand(self, level, trump):
        self.engine.set_trump(level, trump)

    def suit_of(self, card):
        return self.engine.suit_of(card)

    def is_throw(self, cards):
        return self.engine.decompose(cards) > 1

    def throw(self, leader, lead, hands):
        hs = self._hands
        for s in range(4):
            D.hand_from(hands[s], hs[s])
        r = self.engine.check_lead(lead, hs, leader, self._forced)
        if r != D.R_THROW_FAILED:
            return None
        return list(self._forced[: self.engine.nforced])

    def check_follow(self, lead, hand, play):
        h = self._hands[0]
        D.hand_from(hand, h)
        return self.engine.check_follow(lead, h, play)

    def trick(self, leader, plays):
        order = self._order
        pts = 0
        for i in range(4):
            p = plays[(leader + i) & 3]
            order[i] = p
            pts += self.engine.points(p)
        w = self.engine.trick_winner(order)
        for i in range(4):
            order[i] = ()
        return (leader + w) & 3, pts

    def points(self, cards):
        return self.engine.points(cards)

    def kitty(self, lead, winner_play, kitty):
        e = self.engine
        return e.kitty_multiplier(lead), e.kitty_bonus(lead, winner_play, kitty)

    def settle(self, score, dealer, levels, won_by=None):
        # won_by: the attackers' play that won the last trick, or None; a J in
        # it is the tournament rule's "kitty won by a J" (the engine decides
        # whether the rule applies)
        kitty_j = False
        if won_by is not None:
            for c in won_by:
                f = c % 54
                if f < 52 and f % 13 == 9:
                    kitty_j = True
        out = DH.settle(
            score,
            dealer,
            levels,
            self.decks,
            self.level_table,
            self.level_ladder,
            self.must_play,
            self._settled,
            kitty_j,
        )
        return out[0], [out[1], out[2]], out[3]

    def declare(self, first_hand, dealer, level, bids, kitty=None):
        # The bids are replayed in order (a handful per hand): the engine's
        # Bidding decides each, and the end of the draw from the standing one
        # (kitty: the kitty turned up, in order, with no_bid = "kitty").
        b = DH.Bidding(self.decks, level, self.allow_self_override)
        acc = []
        for bid in bids:
            acc.append(b.bid(bid[0], bid[1]))
        self.refused_self = b.refused == DH.BR_SELF
        trump, declarer, dealer = DH.end_of_draw(
            b, first_hand, dealer, self.no_bid, self.first_dealer, kitty, self.engine.permanent_twos
        )
        return acc, trump, declarer, dealer
