// The firmware's reader polling loop (readcore.run, the loop core 1 runs) on
// the emulated RP2040, against four emulated PN532s (pn532.mjs): how long a
// four-seat cycle takes in the chip's (virtual) time, without and with a tag.
//
//   node tools/rp2emu/readers.mjs BUILD_DIR [TURNS] [TIMEOUT_S]
//
// BUILD_DIR as for run.mjs (build.sh's). TURNS: measured turns per case
// (default 200; two turns, seats 0 + 2 then 1 + 3, are one cycle). TIMEOUT_S:
// wall seconds (default 300).
//
// How: the firmware's modules (firmware/*.py as they are on disk) are compiled
// as deploy compiles them (the build's mpy-cross -march=armv6m -O3 -s NAME) and
// written, base64 a line, through the REPL onto a littlefs RAM disk mounted at
// /ram (rp2040js does not emulate flash erase/program: the port's own flash
// filesystem fails to format). The board builds the readers and the scanner
// as picostart.setup does (picohw.readers(machine), scanner.Scanner(readers,
// cards), no card map) and runs readcore.run(sc, time, ctl) on core 0
// (rp2040js runs one core) as readcore.start runs it on core 1.
//
// The host plays core 0's part through ctl (a bytearray: its address printed
// by the board, read and written in the emulated SRAM): each change of
// ctl[TURNS] ends a turn and is stamped with the virtual time (no code added
// on the board); after WARM + TURNS turns a tag (7-byte UID) is laid on seat
// 0's reader; after WARM + TURNS more, ctl[RUN] = 0 ends the loop. Over each
// measured window the host also reads the core's state: the share of virtual
// time not in WFE/WFI, and of that the busy wait in mp_hal_delay_us (sleep_us
// under 1 ms spins; the spin's functions found in the port's ELF with nm).
// READERS_TRACE=1 also lists every SPI transaction of each window's first cycle.
//
// Unlike run.mjs, the emulated USB host here sends nothing while nothing is
// typed (see the REPL section): rp2040js's own answers every OUT read at once
// with an empty packet, an interrupt storm that took ~60% of the core.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { attachReaders, Tag } from './pn532.mjs';

const [buildArg, turnsArg = '200', timeoutArg = '300'] = process.argv.slice(2);
if (!buildArg) {
  console.error('usage: node readers.mjs BUILD_DIR [TURNS] [TIMEOUT_S]');
  process.exit(64);
}
const buildDir = resolve(buildArg);
const turns = Number(turnsArg), timeoutS = Number(timeoutArg);
if (!(turns >= 2 && turns % 2 === 0) || !(timeoutS > 0)) {
  console.error('readers.mjs: TURNS must be even and >= 2, TIMEOUT_S > 0');
  process.exit(64);
}
const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const FW = join(repo, 'firmware');
const MODULES = ['hwconfig', 'pn532', 'pn532cmd', 'scanner', 'scanstart', 'readcore', 'picohw'];
const CARD_UID = [0x04, 0x54, 0x54, 0x00, 0x2a, 0x5a, 0xa5]; // chip.py's deck_uid(42)
const WARM = 40; // turns before each measurement: set-ups, learned waits, the tag's confirmation

// ---- boot (as run.mjs) ----------------------------------------------------
const requireFromBuild = createRequire(join(buildDir, 'package.json'));
const { Simulator, USBCDC, ConsoleLogger, LogLevel } = requireFromBuild('rp2040js');
const sim = new Simulator();
const mcu = sim.rp2040;
const clock = sim.clock;
mcu.logger = new ConsoleLogger(LogLevel.Error);
const rom = readFileSync(join(buildDir, 'bootrom.bin'));
mcu.loadBootrom(new Uint32Array(rom.buffer.slice(rom.byteOffset, rom.byteOffset + rom.length)));
const FLASH_BASE = 0x10000000;
const uf2 = readFileSync(join(buildDir, 'firmware.uf2'));
for (let off = 0; off + 512 <= uf2.length; off += 512) {
  const dv = new DataView(uf2.buffer, uf2.byteOffset + off, 512);
  if (dv.getUint32(0, true) !== 0x0a324655 || dv.getUint32(4, true) !== 0x9e5d5157) continue;
  mcu.flash.set(uf2.subarray(off + 32, off + 32 + dv.getUint32(16, true)), dv.getUint32(12, true) - FLASH_BASE);
}

// ---- the readers (hwconfig.py's wiring) -------------------------------------
const hw = readFileSync(join(FW, 'hwconfig.py'), 'utf8');
const tuple = (name) => hw.match(new RegExp(`^${name} = \\(([^)]*)\\)`, 'm'))[1].split(',').map(Number);
const constant = (name) => Number(hw.match(new RegExp(`^${name} = const\\((\\d+)\\)`, 'm'))[1]);
// READERS_TRACE=1: every SPI transaction of each window's first cycle, on stdout
const trace = [];
const onTransaction = process.env.READERS_TRACE ? (seat, op, n, t0, t1, answer) => {
  if (tracing()) trace.push([t0, seat, op, n, t1 - t0, answer]);
} : null;
const bus = attachReaders(mcu, clock, { spi: constant('SPI_ID'), cs: tuple('READER_CS'), rst: tuple('READER_RSTPD_N'), onTransaction });
const tag = new Tag(CARD_UID);

// ---- the core's time: in WFE/WFI, in mp_hal_delay_us's spin --------------------
// the spin's functions from the port's ELF (skipped if nm or the ELF is missing)
const spin = [];
try {
  const nm = join(buildDir, 'tc/usr/bin/arm-none-eabi-nm');
  const elf = join(buildDir, 'src/micropython-1.26.1/ports/rp2/build-RPI_PICO/firmware.elf');
  for (const l of execFileSync(nm, ['-S', elf], { encoding: 'utf8' }).split('\n')) {
    const [a, s, , n] = l.split(' ');
    if (['mp_hal_delay_us', 'time_us_64', 'timer_time_us_64', '__time_us_64_veneer'].includes(n)) {
      spin.push([parseInt(a, 16) & ~1, (parseInt(a, 16) & ~1) + parseInt(s, 16)]);
    }
  }
} catch (e) { console.error(`[readers] no spin figure: ${e.message}`); }
const inSpin = (pc) => spin.some(([a, b]) => pc >= a && pc < b);
const acct = { waitNs: 0, spinNs: 0 };

// ---- the turns: stamped, the tag laid, the loop stopped ---------------------------
const CTL_RUN = 0, CTL_TURNS = 1;
let ctlOff = -1; // ctl's offset in SRAM, once the board printed it
let lastTurns = 0;
const stamps = []; // at the end of each turn: virtual ns, wait ns, spin ns, SPI bytes
function onTurn() {
  stamps.push([clock.nanos, acct.waitNs, acct.spinNs, bus.stats.bytes]);
  const n = stamps.length; // stamps[i]: the end of turn i + 1
  if (n === A + turns + 1) bus.chips[0].tags.push(tag); // after the no-card window's last stamp
  if (n === B + turns + 1) mcu.sram[ctlOff + CTL_RUN] = 0; // the loop ends after its next turn
}
// the windows' first stamps: no card, then the tag on seat 0
const A = WARM, B = A + turns + 1 + WARM;
const tracing = () => [A, B].some((f) => stamps.length > f && stamps.length <= f + 2);
function printTrace(first) {
  const OPS = { 1: 'write', 2: 'status', 3: 'read' };
  const t0 = stamps[first][0] / 1000, t1 = stamps[first + 2][0] / 1000;
  console.log(`[host] SPI transactions of the cycle from ${t0.toFixed(0)} us (us from its start: seat, what, bytes, us selected; a read: the frame's LEN, LCS and data)`);
  for (const [t, seat, op, n, d, ans] of trace) {
    if (t < t0 || t > t1) continue;
    const what = ans ? ` [${ans.slice(3, ans.length - 2).map((b) => b.toString(16).padStart(2, '0')).join(' ')}]` : '';
    console.log(`  ${(t - t0).toFixed(0).padStart(6)}  seat ${seat} ${(OPS[op] || op).toString().padEnd(6)} ${String(n).padStart(3)} B ${d.toFixed(1).padStart(6)}${what}`);
  }
  console.log(`  ${(t1 - t0).toFixed(0).padStart(6)}  (the cycle's end)`);
}
function report(what, first) {
  // turns first..first+turns: cycles of two turns
  const c = [];
  for (let i = first; i + 2 <= first + turns; i += 2) c.push((stamps[i + 2][0] - stamps[i][0]) / 1000);
  c.sort((x, y) => x - y);
  const [t0, w0, s0, b0] = stamps[first], [t1, w1, s1, b1] = stamps[first + turns];
  const T = t1 - t0, pct = (x) => `${(100 * x / T).toFixed(1)}%`;
  const us = (x) => `${x.toFixed(0)} us`;
  // each turn's own time, the window's odd and even turns apart (the two pairs, alternating)
  const turn = (k) => {
    const t = [];
    for (let i = first + k; i + 1 <= first + turns; i += 2) t.push((stamps[i + 1][0] - stamps[i][0]) / 1000);
    return us(t.sort((x, y) => x - y)[t.length >> 1]);
  };
  console.log(`[host] ${what}: ${c.length} cycles, p50 ${us(c[c.length >> 1])}, mean ${us(c.reduce((s, x) => s + x, 0) / c.length)}, ` +
    `max ${us(c[c.length - 1])}, min ${us(c[0])}; core not in WFE/WFI ${pct(T - (w1 - w0))}` +
    (spin.length ? `, busy-waiting in sleep_us ${pct(s1 - s0)}, working ${pct(T - (w1 - w0) - (s1 - s0))}` : '') +
    `; turns p50 ${turn(0)} / ${turn(1)}; SPI bytes a cycle ${((b1 - b0) / c.length).toFixed(0)}` +
    ` at ${(bus.spi.clockFrequency / 1e6).toFixed(3)} MHz`);
}

// Simulator.execute's loop, with the accounting above
const CYCLE_NS = 1e9 / 125e6;
let running = true;
function execute() {
  const core = mcu.core;
  for (let i = 0; i < 1000000 && running; i++) {
    if (core.waiting) {
      const d = clock.nanosToNextAlarm;
      clock.tick(d);
      acct.waitNs += d;
      i += d / CYCLE_NS;
    } else {
      const pc = core.PC;
      const ns = core.executeInstruction() * CYCLE_NS;
      clock.tick(ns);
      if (spin.length && inSpin(pc)) acct.spinNs += ns;
    }
    if (ctlOff >= 0 && mcu.sram[ctlOff + CTL_TURNS] !== lastTurns) {
      lastTurns = mcu.sram[ctlOff + CTL_TURNS];
      onTurn();
    }
  }
  if (running) setTimeout(execute, 0);
}

// ---- what is typed ----------------------------------------------------------
const mpyCross = join(buildDir, 'src/micropython-1.26.1/mpy-cross/build/mpy-cross');
const out = mkdtempSync(join(tmpdir(), 'rp2readers-'));
process.on('exit', () => rmSync(out, { recursive: true, force: true }));
const upload = [
  'import vfs, binascii',
  'exec("class RAMBD:\\n def __init__(s,n):\\n  s.d=bytearray(n*512)\\n def readblocks(s,b,buf,o=0):\\n  a=b*512+o\\n  buf[:]=s.d[a:a+len(buf)]\\n def writeblocks(s,b,buf,o=None):\\n  a=b*512+(o or 0)\\n  s.d[a:a+len(buf)]=buf\\n def ioctl(s,op,arg):\\n  if op==4: return len(s.d)//512\\n  if op==5: return 512\\n  if op==6: return 0")',
  'bd=RAMBD(100); vfs.VfsLfs2.mkfs(bd); vfs.mount(vfs.VfsLfs2(bd), "/ram"); import sys; sys.path.insert(0, "/ram")',
  'a=binascii.a2b_base64',
];
for (const m of MODULES) {
  const mpy = join(out, `${m}.mpy`);
  execFileSync(mpyCross, ['-march=armv6m', '-O3', '-s', m, '-o', mpy, join(FW, `${m}.py`)]);
  const data = readFileSync(mpy);
  upload.push(`f=open("/ram/${m}.mpy","wb"); w=f.write`);
  for (let o = 0; o < data.length; o += 360) upload.push(`w(a("${data.subarray(o, o + 360).toString('base64')}"))`);
  upload.push('f.close()');
}
const measure = [
  'import machine, time, picohw, scanner, readcore, uctypes',
  'print([m.__file__ for m in (picohw, scanner, readcore)])',
  // picostart.setup's readers and scanner (no card map: every tag unknown)
  'rd = picohw.readers(machine); sc = scanner.Scanner(rd, None)',
  'ctl = bytearray((1, 0, 0, 1)); print("ctl@", uctypes.addressof(ctl))',
  'readcore.run(sc, time, ctl)',
  'print("turns", ctl[1], "exceptions", ctl[2], "alive", ctl[3], "polls", sc.polls, "faults", sc.faults, "errors", [r.errors for r in rd], "learned waits (poll, field-off)", [(r._hints[7], r._hints[9]) for r in rd])',
  'exec("while sc.pop():\\n print(\\"event\\", sc.kind, \\"seat\\", sc.seat, \\"uid\\", bytes(sc.uid[:sc.uid_len]).hex(), \\"t_ms\\", sc.t_ms)")',
];
const lines = [...upload, ...measure];
const bad = lines.find((l) => Buffer.byteLength(l) > 510);
if (bad) throw new Error(`line over 510 bytes: ${bad.slice(0, 60)}...`);

// ---- the REPL (as run.mjs: a line at the prompt after the echo of the one before) ----
const t0 = Date.now();
const cdc = new USBCDC(mcu.usbCtrl);
// rp2040js's CDC host answers every OUT read at once, with nothing when
// nothing is typed: a zero-length packet and a USB interrupt every ~10 us that
// a real host, idle, does not cause (it NAKs). A read that finds nothing to
// send is held until a line is typed, so the loop runs without that storm.
const usb = mcu.usbCtrl, cdcRead = usb.onEndpointRead;
let held = -1; // the size of the OUT read held, or -1
usb.onEndpointRead = (ep, size) => {
  if (ep === cdc.outEndpoint && cdc.txFIFO.empty) held = size;
  else cdcRead(ep, size);
};
const type = (s) => {
  for (const b of Buffer.from(s, 'utf8')) cdc.sendSerialByte(b);
  if (held >= 0) { const n = held; held = -1; cdcRead(cdc.outEndpoint, n); }
};
cdc.onDeviceConnected = () => type('\r\n');
let next = 0, since = '', echo = '';
const quiet = () => next <= upload.length; // the upload's echoes are not shown
console.error(`[readers] ${upload.length} lines of upload, then ${measure.length} of measurement`);
cdc.onSerialData = (buf) => {
  const s = Buffer.from(buf).toString('latin1');
  if (!quiet()) process.stdout.write(buf);
  since += s;
  if (/Traceback|Error/.test(s) && quiet()) process.stdout.write(since);
  const m = ctlOff < 0 && since.match(/ctl@ (\d+)/);
  if (m) ctlOff = Number(m[1]) - 0x20000000;
  if (!since.endsWith('>>> ') || (echo && !since.includes(echo))) return;
  if (next < lines.length) {
    const line = lines[next++];
    echo = line;
    since = '';
    type(line + '\r\n');
  } else {
    running = false;
    console.log('');
    report('no card', A);
    report('tag on seat 0', B);
    if (onTransaction) { printTrace(A); printTrace(B); }
    console.error(`[readers] done: emulated ${(clock.nanos / 1e9).toFixed(3)} s, wall ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    process.exit(0);
  }
};
setTimeout(() => {
  running = false;
  console.error(`\n[readers] TIMEOUT after ${timeoutS} s wall (${next}/${lines.length} lines)`);
  process.exit(2);
}, timeoutS * 1000);
mcu.core.PC = FLASH_BASE;
execute();
