# A scripted stand-in for the rules object that firmware/table.py asks.
#
# The table core's tests check the state machine (phases, turns, grouping of
# taps, what is emitted), not the rules: each verdict here is either trivial
# (winner = the leader, suit = face // 13) or set by the test. The real device
# rules engine is plugged in by tests/table/test_table_drules.py.
# Plain class, no typing: runs under MicroPython too.


def points_of(cards):
    p = 0
    for c in cards:
        f = c % 54
        if f < 52:
            r = f % 13
            if r == 3:
                p += 5
            elif r == 8 or r == 11:
                p += 10
    return p


class FakeRules:
    def __init__(self):
        self.level = 0
        self.trump = 4
        self.throw_answer = None  # what throw() returns (None: the throw stands)
        self.throw_calls = []
        self.illegal = []  # (lead, play) pairs whose follow is illegal with the hand given
        self.follow_calls = 0
        self.winners = []  # scripted trick winners, consumed in order; else the leader
        self.settle_answer = None
        self.no_bid = 0  # 1: no_bid = "kitty"
        self.revoke = 0  # 1: revoke = "forfeit"
        # what tableforfeit.levels reads: the classic table, the full ladder
        self.level_table = 0
        self.level_ladder = 0
        self.must_play = 0

    def begin_hand(self, level, trump, load=False):
        self.level = level
        self.trump = trump

    def hand_rules(self):
        # tablerules.TableRules.hand_rules: drules_hand (no engine to drop here)
        import drules_hand

        return drules_hand

    def suit_of(self, card):
        f = card % 54
        if f >= 52 or f % 13 == self.level or f // 13 == self.trump:
            return 4
        return f // 13

    def is_throw(self, cards):
        f = cards[0] % 54
        for c in cards:
            if c % 54 != f:
                return True
        return False

    def throw(self, leader, lead, hands):
        self.throw_calls.append([leader, list(lead), [list(h) for h in hands]])
        return self.throw_answer

    def check_follow(self, lead, hand, play):
        self.follow_calls += 1
        for bad in self.illegal:
            if sorted(bad[0]) == sorted(lead) and sorted(bad[1]) == sorted(play):
                # illegal only if the hand shows a card of the lead's suit not played
                s = self.suit_of(lead[0])
                for c in hand:
                    if c not in play and self.suit_of(c) == s:
                        return 5  # the reason code the scripted rules give
        return 0

    def trick(self, leader, plays):
        if self.winners:
            w = self.winners.pop(0)
        else:
            w = leader
        pts = 0
        for p in plays:
            pts += points_of(p)
        return w, pts

    def points(self, cards):
        return points_of(cards)

    def kitty(self, lead, winner_play, kitty):
        return 2, 2 * points_of(kitty)

    def settle(self, score, dealer, levels, won_by=None):
        self.won_by = won_by
        if self.settle_answer is not None:
            return self.settle_answer
        side = dealer & 1
        lv = [levels[0], levels[1]]
        if score < 80:
            lv[side] += 1
            return (dealer + 2) & 3, lv, -1
        return (dealer + 1) & 3, lv, -1

    def declare(self, first_hand, dealer, level, bids, kitty=None):
        acc = []
        best = 0
        declarer = -1
        trump = -1
        for b in bids:
            n = len(b[1])
            if n > best:
                best = n
                declarer = b[0]
                f = b[1][0] % 54
                trump = 4 if f >= 52 else f // 13
                acc.append(True)
            else:
                acc.append(False)
        if declarer < 0:
            if kitty and not first_hand:
                f = kitty[0] % 54
                return acc, (4 if f >= 52 or f % 13 == level else f // 13), -1, dealer
            return acc, (-1 if first_hand else 4), -1, (-1 if first_hand else dealer)
        return acc, trump, declarer, (declarer if dealer < 0 else dealer)
