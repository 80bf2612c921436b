"""Generated from the pin map: ``hardware/wiring.svg``, the wiring diagram."""

from __future__ import annotations

import html
from collections.abc import Sequence

from ..paths import HARDWARE_DIR
from .pico import HEADER, SEATS
from .pinmap import PinMap

WIRING_PATH = HARDWARE_DIR / "wiring.svg"


_COLOURS = {
    "SCK": "#d9480f", "MOSI": "#1971c2", "MISO": "#2f9e44", "CS": "#ae3ec9",
    "RST": "#8d5524", "BTN": "#495057", "SDA": "#0c8599", "SCL": "#5c940d",
    "BUZ": "#c2255c", "LED": "#f08c00", "3V3": "#e03131", "GND": "#212529",
}


def _colour(sig_name: str) -> str:
    if "SCK" in sig_name:
        return _COLOURS["SCK"]
    if "MOSI" in sig_name:
        return _COLOURS["MOSI"]
    if "MISO" in sig_name:
        return _COLOURS["MISO"]
    if sig_name.startswith("CS"):
        return _COLOURS["CS"]
    if sig_name.startswith(("RSTPD_N", "display reset")):
        return _COLOURS["RST"]
    if sig_name.startswith("button"):
        return _COLOURS["BTN"]
    if "SDA" in sig_name:
        return _COLOURS["SDA"]
    if "SCL" in sig_name:
        return _COLOURS["SCL"]
    if "buzzer" in sig_name:
        return _COLOURS["BUZ"]
    return _COLOURS["LED"]


def ohms(value: int) -> str:
    """A resistor value as a drawing labels it: 47 -> "47 R", 1000 -> "1 k", 10000 -> "10 k"."""
    if value >= 1000 and value % 100 == 0:
        return f"{value / 1000:g} k"
    return f"{value} R"


class _Svg:
    def __init__(self) -> None:
        self.parts: list[str] = []

    def rect(self, x: float, y: float, w: float, h: float, fill: str, stroke: str = "#333", rx: float = 4) -> None:
        self.parts.append(
            f'<rect x="{x:g}" y="{y:g}" width="{w:g}" height="{h:g}" rx="{rx:g}" fill="{fill}" stroke="{stroke}" stroke-width="1.5"/>'
        )

    def text(self, x: float, y: float, s: str, size: float = 11, anchor: str = "start", weight: str = "normal", fill: str = "#111") -> None:
        self.parts.append(
            f'<text x="{x:g}" y="{y:g}" font-size="{size:g}" text-anchor="{anchor}" font-weight="{weight}" fill="{fill}">{html.escape(s)}</text>'
        )

    def line(self, points: Sequence[tuple[float, float]], colour: str, width: float = 2) -> None:
        pts = " ".join(f"{x:g},{y:g}" for x, y in points)
        self.parts.append(f'<polyline points="{pts}" fill="none" stroke="{colour}" stroke-width="{width:g}" stroke-linejoin="round"/>')

    def dot(self, x: float, y: float, colour: str) -> None:
        self.parts.append(f'<circle cx="{x:g}" cy="{y:g}" r="3.5" fill="{colour}"/>')


def render_svg(pm: PinMap) -> str:
    """A wiring diagram: the Pico's header in the middle, seat modules left, display etc. right."""
    svg = _Svg()
    width, height = 1240, 1040
    sw, pwr = pm.seat_wiring, pm.power
    pitch = 26  # vertical distance between header pins
    px, py, pw = 520, 150, 170  # Pico body: x, y of pin 1, width
    top = py - 40
    svg.rect(px, top, pw, 20 * pitch + 50, "#2b8a3e", "#1b5e20", rx=8)
    svg.rect(px + pw / 2 - 22, top - 14, 44, 26, "#adb5bd", "#495057", rx=3)
    svg.text(px + pw / 2, top - 20, "USB (to the host)", 11, "middle")
    svg.text(px + pw / 2, top + 20 * pitch + 75, pm.board, 13, "middle", "bold")
    svg.text(px + pw / 2, top + 20 * pitch + 92, "top view, header pins numbered", 11, "middle")

    used = {s.header_pin: s for s in pm.signals()}

    def pin_xy(pin: int) -> tuple[float, float]:
        if pin <= 20:
            return px, py + (pin - 1) * pitch
        return px + pw, py + (40 - pin) * pitch

    for pin, name in HEADER.items():
        x, y = pin_xy(pin)
        left = pin <= 20
        fill = "#ffd43b" if pin in used else ("#868e96" if "GND" in name else "#dee2e6")
        if name in ("3V3(OUT)",):
            fill = "#ff8787"
        svg.rect(x - 6, y - 6, 12, 12, fill, "#333", rx=2)
        inner = x + 10 if left else x - 10
        svg.text(inner, y + 4, f"{pin} {name}" if left else f"{name} {pin}", 10, "start" if left else "end", fill="#fff")

    # Left: the four seat modules (PN532 + button), each fed by one cable.
    seat_x, seat_w, seat_h = 40, 210, 150
    bus_x = {"SCK": px - 150, "MOSI": px - 135, "MISO": px - 120}
    mod_terms = ["VCC", "GND", "SCK", "MOSI", "MISO", "SS", "RSTPDN", "button"]
    seat_term_y: dict[int, dict[str, float]] = {}
    for r in pm.readers:
        sy = 45 + r.seat * (seat_h + 45)
        svg.rect(seat_x, sy, seat_w, seat_h, "#e7f5ff", "#1c7ed6")
        svg.text(seat_x + 10, sy + 18, f"Seat {r.seat}: PN532 (SPI mode)", 12, weight="bold")
        svg.text(seat_x + 10, sy + 32, "+ seat button to GND", 10, fill="#495057")
        terms: dict[str, float] = {}
        for k, t in enumerate(mod_terms):
            ty = sy + 48 + k * 12.5
            terms[t] = ty
            svg.text(seat_x + seat_w - 8, ty + 3, t, 9, "end")
            svg.dot(seat_x + seat_w, ty, "#333")
        seat_term_y[r.seat] = terms

    # shared SPI bus: a vertical rail per signal, joined to every seat
    for sig in pm.signals()[:3]:
        key = sig.terminal
        colour = _colour(sig.name)
        hx, hy = pin_xy(sig.header_pin)
        rail = bus_x[key]
        ys = [seat_term_y[s][key] for s in seat_term_y]
        svg.line([(hx - 6, hy), (rail, hy)], colour)
        svg.line([(rail, min(ys + [hy])), (rail, max(ys + [hy]))], colour)
        svg.dot(rail, hy, colour)
        for y in ys:
            svg.line([(seat_x + seat_w, y), (rail, y)], colour)
            svg.dot(rail, y, colour)
            if key in ("SCK", "MOSI"):  # the series resistor at the hub, one per seat and line
                svg.rect(seat_x + seat_w + 14, y - 4, 22, 8, "#ffffff", colour, rx=1)
                svg.rect(seat_x + seat_w + 39, y - 4.5, 24, 9, "#ffffff", "#ffffff", rx=0)
                svg.text(seat_x + seat_w + 40, y + 3, ohms(sw.series_ohms), 8, fill=colour)
    # per-seat lines: each gets its own vertical lane
    lane = px - 105
    per_seat = [s for s in pm.signals() if s.name.startswith(("CS", "RSTPD_N", "button"))]
    for k, sig in enumerate(sorted(per_seat, key=lambda s: s.header_pin)):
        seat = int(sig.name.rsplit(" ", 1)[1])
        term = {"CS": "SS", "RSTPD_N": "RSTPDN", "button": "button"}[sig.name.split(" ")[0]]
        ty = seat_term_y[seat][term]
        hx, hy = pin_xy(sig.header_pin)
        x_lane = lane + k * 6
        colour = _colour(sig.name)
        svg.line([(hx - 6, hy), (x_lane, hy), (x_lane, ty), (seat_x + seat_w, ty)], colour, 1.6)
        if term == "button":  # the ESD filter at the hub: series resistor, capacitor to GND on the cable side
            svg.rect(seat_x + seat_w + 60, ty - 4, 22, 8, "#ffffff", colour, rx=1)
            svg.text(seat_x + seat_w + 14, ty + 11, f"{ohms(sw.button_series_ohms)} + {sw.button_capacitor_nf} nF to GND", 8, fill=colour)
    svg.text(seat_x + seat_w + 14, 30, f"seat cables ({len(sw.order)} conductors each, at most {sw.max_length_cm} cm)", 11, weight="bold")

    # Right: display, buzzer, LED, power.
    rx0 = px + pw + 200
    parts_right = [
        (pm.display_kind + f" {pm.display_width}x{pm.display_height} I2C @ {pm.display_address:#04x}",
         ["VCC", "GND", "SCL", "SDA"] + (["RES"] if pm.display_reset >= 0 else [])),
        ("passive piezo buzzer (100 R in series)", ["+", "-"]),
        ("status LED (330 R in series)", ["anode (via 330 R)", "cathode"]),
    ]
    right_terms: dict[str, tuple[float, float]] = {}
    ry = py - 10
    for title, part_terms in parts_right:
        h = 34 + len(part_terms) * 16
        svg.rect(rx0, ry, 300, h, "#fff9db", "#f08c00")
        svg.text(rx0 + 10, ry + 18, title, 12, weight="bold")
        for k, t in enumerate(part_terms):
            ty = ry + 36 + k * 16
            svg.text(rx0 + 12, ty + 3, t, 10)
            svg.dot(rx0, ty, "#333")
            right_terms[f"{title}:{t}"] = (rx0, ty)
        ry += h + 40
    rights = [s for s in pm.signals() if s.header_pin > 20]
    for k, sig in enumerate(sorted(rights, key=lambda s: -s.header_pin)):
        title = next(t for t, _ in parts_right if t.startswith(sig.part.split(" ")[0]) or sig.part in t)
        tx, ty = right_terms[f"{title}:{sig.terminal}"]
        hx, hy = pin_xy(sig.header_pin)
        x_lane = px + pw + 60 + k * 14
        svg.line([(hx + 6, hy), (x_lane, hy), (x_lane, ty), (tx, ty)], _colour(sig.name))
        svg.text(hx + 12, hy - 4, sig.name, 9, fill=_colour(sig.name))

    # The readers' own regulator, fed from VBUS: routed above the right-hand parts.
    reg_terms = ["IN: VBUS (5 V)", "OUT: 3.3 V to every seat cable's 3V3", "GND"]
    reg_h = 34 + len(reg_terms) * 16 + 18
    svg.rect(rx0, ry, 300, reg_h, "#ffe3e3", _COLOURS["3V3"])
    svg.text(rx0 + 10, ry + 18, f"{pwr.reader_regulator}: the readers' 3.3 V", 12, weight="bold")
    for k, t in enumerate(reg_terms):
        ty = ry + 36 + k * 16
        svg.text(rx0 + 12, ty + 3, t, 10)
    svg.text(rx0 + 12, ry + 36 + len(reg_terms) * 16 + 3,
             f"{pwr.reader_regulator_ma} mA; {pwr.bulk_capacitor_uf} uF bulk at OUT (at the hub)", 10)
    in_y = ry + 36
    vx, vy = pin_xy(pwr.reader_supply_pin)
    route = [(vx + 6, vy), (vx + 20, vy), (vx + 20, py - 30), (width - 25, py - 30), (width - 25, in_y), (rx0 + 300, in_y)]
    svg.line(route, _COLOURS["3V3"])
    svg.dot(rx0 + 300, in_y, "#333")
    svg.text(vx + 24, py - 34, f"{HEADER[pwr.reader_supply_pin]} (pin {pwr.reader_supply_pin}) to the readers' regulator", 9, fill=_COLOURS["3V3"])

    # Power: drawn as labelled rails to keep the picture readable.
    legend_y = 40 + SEATS * (seat_h + 45) + 20
    svg.text(40, legend_y, "Power and ground (not drawn as lines):", 12, weight="bold")
    notes = [
        f"Readers' 3.3 V ({pwr.reader_regulator} OUT)  ->  the 3V3 conductor of every seat cable, {pwr.seat_capacitor_uf} uF across VCC-GND at each PN532",
        "3V3(OUT), header pin 36  ->  the display's VCC and four 10 k pull-ups on the CS lines (never the readers)",
        "GND, header pin 38 (or any GND)  ->  GND of every part and the regulator; the seat buttons and the LED cathode return here",
        "Seat cable, the same at every seat: " + ", ".join(f"{k + 1} {c}" for k, c in enumerate(sw.order)),
        f"At the hub: {ohms(sw.series_ohms)} in series on SCK and on MOSI of each seat; "
        f"{ohms(sw.button_series_ohms)} in series and {sw.button_capacitor_nf} nF to GND on each button line.  Power off before reseating a seat cable.",
        "Set each PN532 board's interface switches to SPI (Elechouse V3: switch 1 OFF, switch 2 ON) before wiring.",
        f"SPI{pm.spi_id} at {pm.spi_baudrate // 1000} kHz, mode 0; I2C{pm.i2c_id} at {pm.i2c_freq // 1000} kHz.  "
        f"Generated from hardware/pinmap.toml (sha256 {pm.digest}) by `make hardware`.",
    ]
    for k, note in enumerate(notes):
        svg.text(40, legend_y + 20 + k * 17, note, 11)
    legend = [("SCK", "SPI SCK"), ("MOSI", "SPI MOSI"), ("MISO", "SPI MISO"), ("CS", "chip-select"),
              ("RST", "RSTPD_N"), ("BTN", "button"), ("SDA", "I2C SDA"), ("SCL", "I2C SCL"),
              ("BUZ", "buzzer"), ("LED", "LED")]
    for k, (key, label) in enumerate(legend):
        lx = 40 + k * 115
        ly = legend_y + 20 + len(notes) * 17 + 14
        svg.line([(lx, ly), (lx + 24, ly)], _COLOURS[key], 3)
        svg.text(lx + 30, ly + 4, label, 10)

    body = "\n  ".join(svg.parts)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="DejaVu Sans, Arial, sans-serif">\n'
        f"  <title>tractor-table wiring: {html.escape(pm.board)}, four PN532 seat readers, {html.escape(pm.display_kind)} display</title>\n"
        f'  <rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>\n'
        f"  {body}\n</svg>\n"
    )
