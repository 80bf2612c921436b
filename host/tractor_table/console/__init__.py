"""``tractor-table console``: the operator's console for one table (Textual).

- :mod:`.source` — the table: a real one on a serial port
  (:class:`~.source.PortSource`) or the real firmware on a virtual table
  (:class:`tractor_table.sim.virtual.source.VirtualSource`, bots optional); the link's notes reach the
  UI through a queue.
- :mod:`.model` — what the panes show, as plain state: the link
  (:class:`~.model.LinkView`) and the game as the events tell it
  (:class:`~.model.GameView`).
- :mod:`.widgets` — the panes and the push confirmation.
- :mod:`.app` — :class:`~.app.ConsoleApp`; styles in ``console.tcss``.

Textual is imported only here (and by the command's ``run``), never when the
command line's parser is built.
"""
