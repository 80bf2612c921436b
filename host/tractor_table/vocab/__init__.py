"""The firmware's vocabulary on the host: one loader, and the typed host types,
a module for each job (import from the module):

- ``vocab.loader``: :func:`firmware`, the host's one loader of firmware
  modules, and :func:`const_names` (a module's ``const()`` names);
- ``vocab.enums``: the enums below and the constants beside them (``NT``,
  ``PARTNER_UNKNOWN``, ``SNAPSHOT_VERSION``, ``TRUMP_NAMES``, ``HAND_PHASES``);
- ``vocab.snapshot``: the snapshot decoder (:class:`Snapshot` and its parts);
- ``vocab.reasons``: the reason maps (:func:`shengji_maps`, :func:`table_reason`,
  :func:`rules_code`).

Every value the table and the host share is defined once, in ``firmware/``, as
``const()`` names (``tests/foundation/test_one_vocabulary.py`` fails on any
copy in the host's source):

| vocabulary | firmware | host type |
|---|---|---|
| game event kinds | ``events.py`` (``HAND_START`` ...), ``evlayout.py`` (``NAMES``) | :class:`EventKind` |
| the table's reasons (REJECT, BID, AUDIT) | ``events.py`` (``OK`` ... ``BID_SELF``, ``REASONS``) | :class:`TableReason` |
| the link's application messages | ``events.py`` (``APP_*``) | :class:`AppCode` |
| the host's commands | ``tablebase.py`` (``CMD_*``) | :class:`TableCommand` |
| sounds, buttons | ``events.py`` (``SND_*``, ``BTN_*``) | :class:`Sound`, :class:`Button` |
| the table core's phases | ``tablebase.py`` (``DEAL`` ... ``CALL``, ``PHASE_NAMES``) | :class:`TablePhase` |
| the device rules engine's codes (AUDIT's and REVOKE's rules_reason) | ``drules.py`` (``OK``, ``R_*``) | :class:`RulesCode` |
| the snapshot's layout | ``snaplayout.py`` (``F_*``, ``T_*``, ``C_*``, ``X_*``; ``tablebase.SNAPSHOT_VERSION``) | :class:`SnapshotField`, :class:`Snapshot` |

and :func:`shengji_maps` (:func:`table_reason`, :func:`rules_code`) maps
``shengji``'s reasons to the table's two codes: the only map between the two
vocabularies.

:func:`firmware` is the host's one loader of firmware modules (the link's
``ttlink``, ``version``, ``cardmap``'s format, and the modules above): it runs
``firmware/<name>.py`` under CPython as the module ``tractor_table.firmware.<name>``,
once, with the firmware's imports of each other resolved to the same loader
(never through ``sys.path``: no firmware module shadows a host one) and
``micropython`` given as a shim (``const``, ``native``, ``viper``).
"""
