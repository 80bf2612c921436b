# runs-under: micropython heapsize=96K
# "Call time" at the table (the club's competition rounds, docs/protocol.md
# CMD_CALL_TIME): the deal in progress is played out, no new one starts.
import events as E
import table as T
from tablescript import Log, deal_to_play, hands_1deck, make, play_trick
from test_table_hand import full_hand


def test_call_time_finishes_the_deal_in_progress_and_starts_no_new_one():
    t, r = make()
    deal_to_play(t)
    t.command([T.CMD_CALL_TIME])  # the 3-minute warning, mid-hand (docs/protocol.md)
    assert t.time_called  # the display's words: tests/table/test_display_words.py
    assert t.phase == T.PLAY  # the deal in progress goes on
    r.winners = [1] * 11 + [0]
    t2, r2 = make()  # a table without the call: the same hand, for comparison
    r2.winners = [1] * 11 + [0]
    log = Log()
    log.pull(t)
    hands = hands_1deck()
    for i in range(12):
        play_trick(t, [hands[s][i : i + 1] for s in range(4)], log)
    full_hand(t2, r2)
    assert t.phase == T.HAND_END and log.find(E.HAND_END) != []
    # OK after the hand's end starts no new deal, and says why; the host cannot either
    t.take_events()
    t.button(0, E.BTN_OK, 5000)
    assert t.phase == T.HAND_END and t.take_events() == []
    assert t.message == "time up: no deal"
    try:
        t.command([T.CMD_NEXT_HAND])
    except T.TableError as exc:
        assert "time" in str(exc)
    else:
        raise AssertionError("next hand accepted after time was called")
    # without the call, OK starts the next deal
    t2.button(0, E.BTN_OK, 5000)
    assert t2.phase == T.DEAL and t2.hand_no == 2
    # the next round's new match clears the call
    t.command([T.CMD_NEW_MATCH])
    assert t.hand_no == 1 and t.phase == T.DEAL and not t.time_called


def test_time_called_survives_a_restart_from_the_saved_snapshot():
    t, r = make()
    deal_to_play(t)
    t.take_save()
    t.command([T.CMD_CALL_TIME])
    assert t.take_save()  # the call alone makes a save due: a power cut keeps it
    snap = t.snapshot()
    assert snap[-1] == [4] or snap[-2] == [4]  # before the rules digest, if any
    t2, r2 = make()  # the table after a power cut: a fresh core, restored from flash
    assert not t2.time_called
    t2.restore(snap)
    assert t2.time_called and t2.phase == T.PLAY
    # without the call, the restored table has none
    t3, _ = make()
    deal_to_play(t3)
    t4, _ = make()
    t4.time_called = True
    t4.restore(t3.snapshot())
    assert not t4.time_called
    # the next round's new match clears it, and the snapshot then has no [4]
    t2.command([T.CMD_NEW_MATCH])
    assert not t2.time_called and [4] not in t2.snapshot()
