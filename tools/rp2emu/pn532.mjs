// PN532 readers for rp2040js: chips on one of the emulated RP2040's SPI buses,
// each behind its own chip-select GPIO (low = selected) and RSTPD_N GPIO (low
// = held in reset), answering as the board model's chip does
// (host/tractor_table/sim/pn532sim/chip.py: Chip, SpiPort, FrameParser;
// docs/readers.md, "Timings"). A port of the part of it the firmware's polling
// and set-up use; the faults, I2C/HSU and InDataExchange are not ported (an
// unknown command is answered with the error frame).
//
// Time is the emulator's (clock.nanos): an answer is ready ACK_US after its
// command frame, and so on, in virtual time. Each SPI byte completes
// 8 / clockFrequency after the SPI peripheral starts it (rp2040js's
// onTransmit / completeTransmit, through one clock alarm), so the firmware's
// transfers take their time at the configured baud rate.
//
// Bit order: the PN532 is LSB first, the rp2 SPI MSB first; the firmware
// reverses every byte itself, so the bytes on this bus are bit-reversed PN532
// bytes, and so are the answers (SpiPort.transfer, as chip.py's).
//
//   import { attachReaders, Tag } from './pn532.mjs';
//   const bus = attachReaders(mcu, clock, { spi: 0, cs: [0, 1, 2, 3], rst: [8, 9, 10, 11] });
//   bus.chips[0].tags.push(new Tag([0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66]));

const ACK = [0x00, 0x00, 0xff, 0x00, 0xff, 0x00];
const ERROR_FRAME = [0x00, 0x00, 0xff, 0x01, 0xff, 0x7f, 0x81, 0x00];
const STATUS_READ = 0x02, DATA_WRITE = 0x01, DATA_READ = 0x03;
const TFI_HOST = 0xd4, TFI_CHIP = 0xd5;
const GET_FIRMWARE_VERSION = 0x02, SAM_CONFIGURATION = 0x14, RF_CONFIGURATION = 0x32;
const IN_LIST_PASSIVE_TARGET = 0x4a;
const FIRMWARE_VERSION = [0x32, 0x01, 0x06, 0x07];

const REV = new Uint8Array(256);
for (let b = 0; b < 256; b++) {
  let r = 0;
  for (let i = 0; i < 8; i++) r |= ((b >> i) & 1) << (7 - i);
  REV[b] = r;
}

const checksum = (bytes) => (-bytes.reduce((s, b) => s + b, 0)) & 0xff;
// a normal information frame around TFI + data
const frame = (data) => [0x00, 0x00, 0xff, data.length, (-data.length) & 0xff, ...data, checksum(data), 0x00];

/** An ISO 14443-A tag: an NTAG213 for a 7-byte UID (SENS_RES 00 44, SEL_RES 00), else MIFARE-like. */
export class Tag {
  constructor(uid) {
    if (![4, 7, 10].includes(uid.length)) throw new Error(`a UID is 4, 7 or 10 bytes, not ${uid.length}`);
    this.uid = [...uid];
    const ntag = uid.length === 7;
    this.sensRes = ntag ? [0x00, 0x44] : [0x00, 0x04];
    this.selRes = ntag ? 0x00 : 0x08;
  }
}

// chip.py's FrameParser: frames, ACK and NACK out of one data write
class FrameParser {
  constructor() { this.reset(); }
  reset() { this.state = 'hunt'; this.prev = -1; this.length = 0; this.data = []; }
  feed(b) {
    switch (this.state) {
      case 'hunt':
        if (this.prev === 0x00 && b === 0xff) this.state = 'len';
        this.prev = b;
        return null;
      case 'len':
        this.length = b; this.state = 'lcs';
        return null;
      case 'lcs': {
        const n = this.length;
        this.prev = -1; this.state = 'hunt';
        if (n === 0x00 && b === 0xff) return ['ack'];
        if (n === 0xff && b === 0x00) return ['nack'];
        if (((n + b) & 0xff) !== 0 || n === 0) return ['error'];
        this.data = []; this.state = 'data';
        return null;
      }
      case 'data':
        this.data.push(b);
        if (this.data.length === this.length) this.state = 'dcs';
        return null;
      default: // dcs
        this.state = 'hunt'; this.prev = -1;
        return checksum(this.data) === b ? ['frame', this.data] : ['error'];
    }
  }
}

/** One PN532 (chip.py's Chip, no faults): frames in, ACK and answers out at their times. */
export class Chip {
  constructor(nowUs, name) {
    this.now = nowUs; // () => microseconds of virtual time
    this.name = name;
    this.tags = []; // Tag objects on the antenna
    this.commands = 0;
    this.badFrames = 0;
    this.resets = 0;
    this.bootUntil = 0;
    this.powerUp();
  }
  powerUp() {
    this.powered = true;
    this.lowvbat = true; // after a reset only SAMConfiguration is taken
    this.rfOn = false;
    this.maxRetries = 0xff;
    this.queue = []; // [readyUs, frame bytes]
    this.lastResponse = null;
  }
  setRstpd(level) {
    if (!level) {
      if (this.powered) this.resets++;
      this.powered = false; this.rfOn = false; this.queue = [];
    } else if (!this.powered) {
      this.powerUp();
      this.bootUntil = this.now() + Chip.BOOT_US;
    }
  }
  alive() { return this.powered && this.now() >= this.bootUntil; }
  ready() { return this.alive() && this.queue.length > 0 && this.queue[0][0] <= this.now(); }
  head() { return this.queue.length ? this.queue[0][1] : []; }
  consume() { this.queue.shift(); }

  receive(item) {
    if (!this.alive()) return;
    const [kind, data] = item;
    if (kind === 'error') { this.badFrames++; return; }
    if (kind === 'ack') { this.queue = []; return; } // the host aborts the command
    if (kind === 'nack') {
      if (this.lastResponse) this.queue = [[this.now(), this.lastResponse]];
      return;
    }
    if (data.length < 2 || data[0] !== TFI_HOST) { this.badFrames++; return; }
    const cmd = data[1];
    if (this.lowvbat && cmd !== SAM_CONFIGURATION) return;
    this.commands++;
    const t = this.now() + Chip.ACK_US;
    this.queue = [[t, ACK]];
    const result = this.execute(cmd, data.slice(2));
    if (result === null) return; // searching forever (MaxRetries 0xFF, no tag)
    const [delay, reply] = result;
    const out = reply === null ? ERROR_FRAME : frame([TFI_CHIP, cmd + 1, ...reply]);
    this.lastResponse = out;
    this.queue.push([t + delay, out]);
  }

  // [delay after the ACK (us), answer data or null for the error frame], or null
  execute(cmd, p) {
    if (cmd === GET_FIRMWARE_VERSION) return [Chip.CMD_US, FIRMWARE_VERSION];
    if (cmd === SAM_CONFIGURATION) {
      if (p.length < 1 || p[0] < 1 || p[0] > 4) return [Chip.CMD_US, null];
      this.lowvbat = false;
      return [Chip.CMD_US, []];
    }
    if (cmd === RF_CONFIGURATION) return this.rfConfiguration(p);
    if (cmd === IN_LIST_PASSIVE_TARGET) return this.inList(p);
    return [Chip.CMD_US, null];
  }

  rfConfiguration(p) {
    if (p.length < 2) return [Chip.CMD_US, null];
    const item = p[0];
    if (item === 0x01) { this.rfOn = !!(p[1] & 1); return [Chip.CMD_US, []]; }
    if (item === 0x05) {
      if (p.length !== 4) return [Chip.CMD_US, null];
      this.maxRetries = p[3];
      return [Chip.CMD_US, []];
    }
    const sizes = { 0x02: 3, 0x04: 1, 0x0a: 11, 0x0b: 8, 0x0c: 3, 0x0d: 9 };
    if (item in sizes) return [Chip.CMD_US, p.length === 1 + sizes[item] ? [] : null];
    return [Chip.CMD_US, null];
  }

  // InListPassiveTarget: its answer timed from the command frame (the ACK's
  // 0.5 ms is part of it): RF settle 5 ms if the field was off, 2.1 ms a
  // cascade level of each tag found, 0.4 ms a try for a target not there
  inList(p) {
    if (p.length < 2 || (p[0] !== 1 && p[0] !== 2) || p[1] > 4) return [Chip.CMD_US, null];
    const maxTg = p[0];
    let delay = this.rfOn ? 0 : Chip.RF_SETTLE_US;
    this.rfOn = true;
    if (p[1] !== 0x00) return [delay + (this.maxRetries + 1) * Chip.TRY_US, [0x00]];
    const found = this.tags.slice(0, maxTg);
    if (!found.length && this.maxRetries === 0xff) return null;
    const tries = this.maxRetries !== 0xff ? this.maxRetries + 1 : 1;
    for (const tag of found) delay += (tag.uid.length === 4 ? 1 : tag.uid.length === 7 ? 2 : 3) * Chip.LEVEL_US;
    if (found.length < maxTg) delay += tries * Chip.TRY_US;
    delay = delay > Chip.ACK_US ? delay - Chip.ACK_US : 0;
    const out = [found.length];
    found.forEach((tag, i) => out.push(i + 1, ...tag.sensRes, tag.selRes, tag.uid.length, ...tag.uid));
    return [delay, out];
  }
}
// chip.py's figures (us)
Chip.ACK_US = 500;
Chip.CMD_US = 800;
Chip.RF_SETTLE_US = 5000;
Chip.TRY_US = 400;
Chip.LEVEL_US = 2100;
Chip.BOOT_US = 2000;

// chip.py's SpiPort: the first byte of a selection says what it is
class SpiPort {
  constructor(chip, onTransaction) {
    this.chip = chip;
    this.selected = false;
    this.parser = new FrameParser();
    this.onTransaction = onTransaction; // (op, bytes, t0Us, t1Us, answer) at each deselect, or null
  }
  cs(level) {
    if (!level && !this.selected) {
      this.selected = true; this.op = -1; this.index = 0; this.readAny = false; this.n = 0; this.t0 = this.chip.now();
      this.parser.reset();
    } else if (level && this.selected) {
      this.selected = false;
      const answer = this.op === DATA_READ && this.readAny ? this.chip.head() : null;
      if (answer) this.chip.consume();
      if (this.onTransaction) this.onTransaction(this.op, this.n, this.t0, this.chip.now(), answer);
    }
  }
  transfer(wire) {
    const chip = this.chip;
    this.n++;
    if (!this.selected || !chip.alive()) return 0x00;
    const b = REV[wire];
    if (this.op < 0) { this.op = b; return 0x00; }
    let out = 0x00;
    if (this.op === STATUS_READ) out = chip.ready() ? 0x01 : 0x00;
    else if (this.op === DATA_WRITE) {
      const item = this.parser.feed(b);
      if (item) chip.receive(item);
    } else if (this.op === DATA_READ) {
      if (chip.ready()) {
        const head = chip.head();
        if (this.index < head.length) out = head[this.index];
        this.readAny = true;
      }
      this.index++;
    }
    return REV[out];
  }
}

/**
 * Chips on SPI bus `spi` of `mcu`, chip i selected by GPIO cs[i] and reset by
 * GPIO rst[i]. A pin that is not driven low (high, or still an input: the
 * breakouts' pull-ups) deselects / releases. onTransaction(seat, op, bytes,
 * t0Us, t1Us, answer): called at each deselect (op: the first byte, 1 write,
 * 2 status, 3 read; answer: the frame a read took, else null). Returns { chips, stats, spi }:
 * stats.bytes (SPI bytes clocked), stats.collisions (bytes with two chips
 * selected; the master reads 0xFF then, as from no chip); spi: the peripheral.
 */
export function attachReaders(mcu, clock, { spi = 0, cs, rst, onTransaction = null }) {
  const nowUs = () => clock.nanos / 1000;
  const chips = cs.map((_, i) => new Chip(nowUs, `pn532-${i}`));
  const ports = chips.map((c, i) => new SpiPort(c, onTransaction && ((...a) => onTransaction(i, ...a))));
  const stats = { bytes: 0, collisions: 0 };
  const LOW = 0; // GPIOPinState.Low
  cs.forEach((pin, i) => mcu.gpio[pin].addListener((v) => ports[i].cs(v === LOW ? 0 : 1)));
  rst.forEach((pin, i) => mcu.gpio[pin].addListener((v) => chips[i].setRstpd(v === LOW ? 0 : 1)));

  const bus = mcu.spi[spi];
  let rx = 0;
  const done = clock.createAlarm(() => bus.completeTransmit(rx));
  bus.onTransmit = (value) => {
    stats.bytes++;
    const sel = ports.filter((p) => p.selected);
    if (sel.length > 1) {
      stats.collisions++;
      sel.forEach((p) => p.transfer(value));
      rx = 0xff;
    } else {
      rx = sel.length ? sel[0].transfer(value) : 0xff;
    }
    const hz = bus.clockFrequency;
    if (hz > 0) done.schedule((8 * 1e9) / hz); // the byte's 8 bits at the bus's clock
    else bus.completeTransmit(rx);
  };
  return { chips, stats, spi: bus };
}
