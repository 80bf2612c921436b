"""The virtual table: the real firmware on a simulated board, played by bots.

- :mod:`.runner` — :class:`~.runner.VirtualTable` compiles ``firmware/`` with
  ``mpy-cross`` (the very ``.mpy`` files a Pico gets), starts it under
  MicroPython's unix port on a simulated board (the board's fast mode, ``sim/board/mpy/vboard.py``: seat readers
  and buttons driven through a FIFO, display and buzzer reported back, flash in
  a folder) with its USB serial on a pseudo-terminal, and opens that terminal
  with pyserial through the host link (:class:`tractor_table.link.serial_link.SerialLink`).
- :mod:`.game` — :class:`~.game.BotGame` deals, lets ``shengji``'s bots choose
  the cards, taps them at the seat readers, and follows the table's game events
  on the link, checking each against the full engine.
- :mod:`.events` — the firmware's game events (``firmware/events.py``) read on
  the host, and one-line descriptions of them.
"""
