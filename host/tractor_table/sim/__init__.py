"""The simulators' room: everything that stands in for hardware or for a table.

- ``sim.board``: the board model (the firmware under MicroPython on a model of
  the Pico: its ``machine`` API, the RP2040's heap, stack and time, four PN532
  chips, the display and the NOR flash under littlefs);
- ``sim.virtual``: the virtual table (the same firmware with virtual readers,
  the bots, the club's simulated tables);
- ``sim.pn532sim``: the byte-accurate PN532 simulator.

The product (link, records, report, console, club, deploy) imports nothing from
here; ``tractor_table.commands`` wires the two together.
``tests/foundation/test_sim_room.py`` keeps that rule.
"""
