# The device end of the end-to-end link test, run by MicroPython's unix
# port with its stdin/stdout on a pseudo-terminal (as the Pico's USB serial).
#
# Usage: micropython device_prog.py STATE_FILE [VARIANT] [PERSIST_EVERY] [TARGET]
#
# Emits the deterministic test stream (linkapp.game_event) up to TARGET
# events (default 0), or the target the host sets with the app message
# ["emit_to", N], one event every 5 ms;
# persists its log to STATE_FILE every PERSIST_EVERY events (so a kill loses
# the events since, like a power cut mid-trick); writes what it holds in RAM
# to STATE_FILE.ram after every change, for the test to compare with.
import sys
import time

import ttlink
import ttlink_io
from linkapp import FW, RULES, DeviceApp, FileStore

INTERVAL_MS = 5


def main(argv):
    state = argv[1]
    variant = int(argv[2]) if len(argv) > 2 else 0
    persist_every = int(argv[3]) if len(argv) > 3 else 1
    port = ttlink_io.StdioPort()
    now = time.ticks_ms()
    boot_id = ttlink_io.random32()
    link = ttlink.DeviceLink(now, boot_id, ttlink_io.random32, FW, RULES, ring=64)
    app = DeviceApp(link, FileStore(state), persist_every, variant)
    ram = FileStore(state + ".ram")
    shown = -1
    # a line that is not a frame, as MicroPython prints at boot
    port.write(f"device_prog boot {boot_id} with {len(app.events)} events\r\n".encode())
    target = max(len(app.events), int(argv[4]) if len(argv) > 4 else 0)
    next_at = now
    while True:
        now = time.ticks_ms()
        data = port.read()
        if data:
            link.feed(data, now)
        link.tick(now)
        for note in link.take_notes():
            if note[0] == "app" and note[1] and note[1][0] == "emit_to":
                target = max(target, note[1][1])
        if len(app.events) < target and time.ticks_diff(now, next_at) >= 0:
            app.next_event()
            next_at = time.ticks_add(now, INTERVAL_MS)
        out = link.take_output()
        if out:
            port.write(out)
        if shown != app.link.count or app.applied:
            app.applied = 0
            shown = app.link.count
            ram.save(ttlink.canonical(app.events))
        if not data and not out:
            time.sleep_ms(1)


main(sys.argv)
