# Notation for the device engine's tests (both runtimes): "AS KH TD 5C SJ BJ".
# The engine itself only sees ints; this turns test strings into card ids.
# (drules is imported where needed: the hand tests do without it, which keeps
# their MicroPython heap small.)

RANKS = "23456789TJQKA"
SUITS = "SHDC"


def face(tok):
    if tok == "SJ":
        return 52
    if tok == "BJ":
        return 53
    return SUITS.index(tok[1]) * 13 + RANKS.index(tok[0])


def ids(text):
    """Card ids (copies numbered in order of appearance)."""
    seen = [0] * 54
    out = bytearray()
    for tok in text.split():
        f = face(tok)
        out.append(seen[f] * 54 + f)
        seen[f] += 1
    return out


def hand(text):
    import drules

    return drules.hand_from(ids(text))


def names(cards):
    out = []
    for c in cards:
        f = c % 54
        out.append("SJ" if f == 52 else "BJ" if f == 53 else RANKS[f % 13] + SUITS[f // 13])
    return sorted(out)


def engine(level="2", trump="NT", **options):
    import drules

    e = drules.Engine(**options)
    e.set_trump(RANKS.index(level), 4 if trump == "NT" else SUITS.index(trump))
    return e


def shape(e, text):
    n = e.decompose(ids(text))
    out = []
    for i in range(n):
        m = e.units[3 * i]
        k = e.units[3 * i + 1]
        out.append("sp34"[m - 1] if k == 1 else "tTQ"[m - 2] + str(k))
    return out
