

@pytest.mark.parametrize(("seed", "hand_scan"), [(2, False), (5, False), (4, True)])
def test_failed_throws_and_their_penalty_by_seat_agree(seed: int, hand_scan: bool) -> None:
    # random bots throw combinations that fail: challenged (or forced at once
    # in hand_scan mode), the penalty counted by the leader's seat until the
    # partner is known, then for or against the attackers
    rules = Rules.preset("friend", throw_penalty=10)
    vt = InProcessTable(2, rules, hand_scan=hand_scan)
    game = BotGame(vt, rules, seed=seed, strength=0, say=lambda s: None)  # type: ignore[arg-type]
    game.play(2)
    assert game.disagreements == []
    assert game.challenges + game.forced_at_once > 0
    v = verify(vt.log, rules=rules)
    assert [d.show() for d in v.disagreements] == [] and v.agreed == v.checked
    assert any(ev[0] == EV.FORCED and ev[3] == 10 for _, _, ev in vt.log)
