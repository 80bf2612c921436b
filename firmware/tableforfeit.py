# revoke = "forfeit" (docs/rules.md §10.3, the tournament rule): a
# revoke loses the hand for the offending side. A part of the table core
# (tablebase.py): functions of the table's state, loaded by table.Table only
# at a table that plays this option, when a revoke is known or a hand ends,
# and given to tablehandend.end_hand. The level result is computed here from
# the rules' options (level_table, level_ladder, must_play: tablerules.TableRules').
#
# When the table knows the revoke, the hand ends (tabletrick.py; table.Table
# ends it after the play):
#   hand_scan mode: at the illegal follow itself (it stands: PLAY, REVOKE of
#     that very trick: tabletrick.commit_follow), where the flag rule refuses it instead;
#   otherwise: at the play that proves it (REVOKE), or at the end-of-hand
#     audit (the first AUDIT revoke: earliest trick, first in play order).
# Then FORFEIT [trick, seat] and HAND_END. A hand ended before its last
# trick has no kitty bonus and no audit; its score is the attackers' points
# so far (shown, not used: the forfeit decides the levels).
#
# The level result, as the full engine's HandResult.forced_result (the
# device rules engine settles by score only, drules_hand.settle):
#   the defenders revoked: the attackers take the deal over (+0);
#   the attackers revoked: the defenders keep it and go up one level;
# the ladder, must_play stops, the match won at A and the tournament's
# J-kitty rule are the engine's (drules_hand.advance).
import events as E


def from_audit(tb, found):
    # the revoke first found by the audit: the earliest trick's, and in it the
    # first in play order (the audit's blocks come latest trick first)
    for k in range(len(found) - 1, -1, -1):
        best = 4
        for ev in found[k]:
            if ev[3] == E.REVOKE_FOLLOW:
                o = (ev[2] - tb.tricks[ev[1]][0]) & 3
                if o < best:
                    best = o
                    tb.forfeit = [ev[1], ev[2]]
        if best < 4:
            return


def settle(tb, won_by, now_ms):
    """FORFEIT, and the rules' level result: (next dealer, levels, match winner)."""
    t, seat = tb.forfeit
    kitty_j = False
    for c in won_by or ():
        f = c % 54
        if f < 52 and f % 13 == 9:
            kitty_j = True
    out = levels(tb.rules, tb.dealer, tb.levels, seat, kitty_j)
    tb.emit([E.FORFEIT, t, seat])
    tb.beep(E.SND_ERROR)
    tb.say("S%d revoke: lost" % seat, now_ms)
    return out


def levels(rules, dealer, lv, seat, kitty_j=False):
    """(next_dealer, [level side 0, level side 1], match winner side or -1)
    for a hand that `seat`'s revoke lost; kitty_j: the attackers took the
    last trick's kitty with a J. rules: level_table, level_ladder, must_play;
    hand_rules() gives drules_hand (the engine leaves the heap first)."""
    DH = rules.hand_rules()

    dside = dealer & 1
    out = [lv[0], lv[1]]
    winner = -1
    if (seat & 1) == dside:
        nd = (dealer + 1) & 3
    else:
        nd = (dealer + 2) & 3
        if lv[dside] == DH.RANK_A:
            winner = dside
        out[dside] = DH.advance(lv[dside], 1, rules.level_ladder, rules.must_play)
    tournament = rules.level_table == DH.LT_TOURNAMENT or rules.level_ladder == DH.LL_TOURNAMENT
    if kitty_j and tournament and lv[dside] == DH.RANK_J:
        out[dside] = 0
    return nd, out, winner
