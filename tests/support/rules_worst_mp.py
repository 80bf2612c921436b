# The device rules engine's slowest checks, searched for under MicroPython:
# random big leads (throws of up to 26 cards, 1-4 decks, every shape,
# same_shape_only, permanent_twos, NT) and holdings, then a hill-climb that
# mutates the slowest inputs (a card of the lead, of the holding or of the
# play swapped for another) and keeps what is slower. Prints the median and
# the worst time per check (unix port, microseconds; the best of 3 calls per
# input) and the RP2040 estimate of bench/rp2040.py (x190 for rules checks,
# x1.3 for flash wait states), and the worst inputs found.
#
#   .venv/bin/micropython -X heapsize=1M tests/support/rules_worst_mp.py [SEED [CASES [STEPS]]]
#
# (run from the checkout, with firmware/ on the path: see the command in
# docs/firmware.md, "Device rules engine").
import sys
import time

sys.path.insert(0, "firmware")
sys.path.insert(0, "tests/support")
import drules as D  # noqa: E402

_RP2 = 190 * 1.3  # bench/rp2040.py: RULES x FLASH_WAIT


class Rng:
    def __init__(self, seed):
        self.x = seed & 0x7FFFFFFF

    def below(self, n):
        self.x = (self.x * 1103515245 + 12345) & 0x7FFFFFFF
        return (self.x >> 8) % n


def suit_faces(e, s):
    return [e.order[i] for i in range(e.start[s], e.start[s + 1])]


def draw(rng, faces, left, n, decks):
    out = []
    i = rng.below(len(faces))
    tries = 0
    while len(out) < n and tries < 400:
        tries += 1
        f = faces[i]
        take = 1 + rng.below(decks)
        while take and left[f] > 0 and len(out) < n:
            out.append(f)
            left[f] -= 1
            take -= 1
        j = rng.below(4)
        if j == 0:
            i = rng.below(len(faces))
        elif j < 3:
            i = (i + 1) % len(faces)
    return out


def ids(faces):
    seen = bytearray(54)
    out = bytearray(len(faces))
    for i in range(len(faces)):
        f = faces[i]
        out[i] = seen[f] * 54 + f
        seen[f] += 1
    return out


class Case:
    def __init__(self, rng=None):
        if rng is None:
            return
        self.decks = 1 + rng.below(4) if rng.below(4) == 0 else 3 + rng.below(2)
        self.twos = rng.below(3) == 0
        self.same = rng.below(6) == 0
        self.level = rng.below(13)
        self.trump = rng.below(5)
        e = self.engine()
        s = 4 if rng.below(3) else rng.below(4)
        if s == self.trump or not suit_faces(e, s):
            s = 4
        self.s = s
        self.faces = suit_faces(e, s)
        left = bytearray(54)
        for f in range(54):
            left[f] = self.decks
        n = 4 + rng.below(23)
        self.lead = draw(rng, self.faces, left, n, self.decks)
        self.hold = draw(rng, self.faces, left, len(self.lead) + 1 + rng.below(20), self.decks)
        self.others = [draw(rng, self.faces, left, rng.below(20), self.decks) for _ in range(3)]
        self.pick(rng)

    def engine(self):
        e = D.Engine(decks=self.decks, permanent_twos=self.twos, same_shape_only=self.same)
        e.set_trump(self.level, self.trump)
        return e

    def pick(self, rng):
        pool = list(self.hold)
        self.play = []
        while len(self.play) < len(self.lead) and pool:
            self.play.append(pool.pop(rng.below(len(pool))))

    def mutate(self, rng):
        """A copy with one card changed (counts stay within the decks)."""
        c = Case()
        for a in ("decks", "twos", "same", "level", "trump", "s", "faces", "others"):
            setattr(c, a, getattr(self, a))
        c.lead = list(self.lead)
        c.hold = list(self.hold)
        used = bytearray(54)
        for f in c.lead + c.hold:
            used[f] += 1
        free = [f for f in self.faces if used[f] < self.decks]
        w = rng.below(3)
        if not free and not c.hold:
            return None
        if not free:
            # every copy is out: swap a card of the lead with one of the hand
            i = rng.below(len(c.lead))
            j = rng.below(len(c.hold))
            c.lead[i], c.hold[j] = c.hold[j], c.lead[i]
            c.pick(rng)
            return c
        f = free[rng.below(len(free))]
        if w == 0 or not c.hold:
            c.lead[rng.below(len(c.lead))] = f
        elif w == 1 or len(c.hold) <= len(c.lead):
            c.hold[rng.below(len(c.hold))] = f
        else:
            c.hold.append(f)
        c.pick(rng)
        return c


def best_of(fn, reps=3):
    best = 1 << 30
    for _ in range(reps):
        t = time.ticks_us()
        fn()
        d = time.ticks_diff(time.ticks_us(), t)
        if d < best:
            best = d
    return best


def times(c, reps=3):
    """(follow, lead, trick) times of a case, microseconds (the best of reps
    calls each: the machine may be busy)."""
    e = c.engine()
    h = D.hand_from(ids(c.hold))
    lead = ids(c.lead)
    play = ids(c.play)
    hands = [
        D.hand_from(ids(c.lead)),
        h,
        D.hand_from(ids(c.others[0])),
        D.hand_from(ids(c.others[1])),
    ]
    forced = bytearray(64)
    tf = best_of(lambda: e.check_follow(lead, h, play), reps)
    tl = best_of(lambda: e.check_lead(lead, hands, 0, forced), reps)
    plays = [lead, play, ids(c.play[::-1]), ids(sorted(c.play))]
    tt = best_of(lambda: e.trick_winner(plays), reps)
    return tf, tl, tt


def show(c):
    names = "23456789TJQKA"

    def nm(fs):
        return " ".join(
            "SJ" if f == 52 else "BJ" if f == 53 else names[f % 13] + "SHDC"[f // 13]
            for f in sorted(fs)
        )

    return (
        "decks=%d level=%s trump=%s twos=%d same=%d\n    lead: %s\n    hand: %s\n    play: %s"
        % (
            c.decks,
            names[c.level],
            "SHDC"[c.trump] if c.trump < 4 else "NT",
            c.twos,
            c.same,
            nm(c.lead),
            nm(c.hold),
            nm(c.play),
        )
    )


def issue_12_case():
    """The follow of issue 12 (4 decks, level 7, trump S), best of 30 calls."""
    names = "23456789TJQKA"

    def fs(text):
        out = []
        for t in text.split():
            out.append(
                52
                if t == "SJ"
                else 53
                if t == "BJ"
                else "SHDC".index(t[1]) * 13 + names.index(t[0])
            )
        return out

    from drules_refladder import RefEngine  # the searches before issue 12

    lead = ids(fs("7S 7S 7S 9S 9S 9S JS JS QS QS KS KS KS AS AS AS 7D 7D 7D 7C 7C 7C"))
    h = D.hand_from(
        ids(fs("2S 2S 3S 3S 4S 4S 4S 4S 6S 6S 7S 8S 8S 9S TS TS JS JS QS QS KS AS 7D 7C SJ SJ BJ"))
    )
    play = ids(fs("SJ 2S 9S 7C 3S 7S 6S 4S AS 6S 8S SJ JS 4S 4S 2S QS TS 7D 8S 3S QS"))
    out = []
    for E, reps in ((D.Engine, 30), (RefEngine, 3)):
        e = E(decks=4)
        e.set_trump(5, 0)
        r = e.check_follow(lead, h, play)
        out.append((r, best_of(lambda e=e: e.check_follow(lead, h, play), reps)))
    (r, t), (r0, t0) = out
    print(
        "issue 12 follow: reason %d, %d us (RP2040 %.1f ms); the old search: reason %d, %d us (%.0fx)"
        % (r, t, t * _RP2 / 1000, r0, t0, t0 / t)
    )


def main(argv):
    issue_12_case()
    seed = int(argv[1]) if len(argv) > 1 else 1
    ncases = int(argv[2]) if len(argv) > 2 else 300
    steps = int(argv[3]) if len(argv) > 3 else 300
    rng = Rng(seed)
    kinds = ("check_follow", "check_lead", "trick_winner")
    all_t = [[], [], []]
    worst = [(0, None), (0, None), (0, None)]
    cases = []
    for _ in range(ncases):
        c = Case(rng)
        t = times(c)
        cases.append((t, c))
        for k in range(3):
            all_t[k].append(t[k])
            if t[k] > worst[k][0]:
                worst[k] = (t[k], c)
    # Hill-climb from the slowest of each kind.
    for k in range(3):
        cur_t, cur = worst[k]
        for _ in range(steps):
            m = cur.mutate(rng)
            if m is None:
                continue
            t = times(m)
            all_t[k].append(t[k])
            if t[k] > cur_t:
                cur_t, cur = t[k], m
        worst[k] = (cur_t, cur)
    # A slow time may be the machine's: the worst inputs are timed again,
    # the best of 30 calls (and the random inputs' slowest ten).
    for k in range(3):
        worst[k] = (times(worst[k][1], 30)[k], worst[k][1])
        top = sorted(range(ncases), key=lambda i: -cases[i][0][k])[:10]
        for i in top:
            all_t[k][i] = times(cases[i][1], 30)[k]
    for k in range(3):
        ts = sorted(all_t[k][:ncases])  # the random inputs only
        med = ts[len(ts) // 2]
        print(
            "%-13s random inputs: n=%d median %d us (RP2040 %.2f ms), worst %d us; after %d hill-climb steps: worst %d us (RP2040 %.1f ms)"
            % (
                kinds[k],
                len(ts),
                med,
                med * _RP2 / 1000,
                ts[-1],
                steps,
                worst[k][0],
                worst[k][0] * _RP2 / 1000,
            )
        )
        print("  worst after the hill-climb: " + show(worst[k][1]))
        i = max(range(ncases), key=lambda i: all_t[k][i])
        print("  worst random input: " + show(cases[i][1]))


main(sys.argv)
