// Boot the MicroPython rp2 firmware built by build.sh on an emulated RP2040
// (rp2040js) and drive its REPL over the emulated USB CDC.
//
//   node tools/rp2emu/run.mjs BUILD_DIR SCRIPT [TIMEOUT_S]
//
// BUILD_DIR holds bootrom.bin, firmware.uf2 and node_modules/rp2040js (build.sh).
// SCRIPT's non-empty lines are typed one at a time, each at a fresh `>>> `
// prompt; keep them short (the emulated USB CDC drops what does not fit:
// at most 510 bytes a line, longer ones are refused) and
// single-line (a `... ` continuation prompt is never answered: wrap blocks in
// exec("...\n...")). Everything the board prints goes to stdout.
// Exit 0 at the prompt after the last line; 2 when TIMEOUT_S (wall seconds,
// default 120) pass first. Runner notes, including the total emulated time,
// go to stderr.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';

const [buildArg, scriptPath, timeoutArg = '120'] = process.argv.slice(2);
if (!buildArg || !scriptPath) {
  console.error('usage: node run.mjs BUILD_DIR SCRIPT [TIMEOUT_S]');
  process.exit(64);
}
const buildDir = resolve(buildArg);
const timeoutS = Number(timeoutArg);
if (!(timeoutS > 0)) {
  console.error(`run.mjs: bad TIMEOUT_S ${timeoutArg}`);
  process.exit(64);
}

// rp2040js from BUILD_DIR/node_modules, not from wherever this file lives.
const requireFromBuild = createRequire(join(buildDir, 'package.json'));
const { Simulator, USBCDC, ConsoleLogger, LogLevel } = requireFromBuild('rp2040js');

const sim = new Simulator();
const mcu = sim.rp2040;
mcu.logger = new ConsoleLogger(LogLevel.Error);

const rom = readFileSync(join(buildDir, 'bootrom.bin'));
if (rom.length !== 16384) throw new Error(`bootrom.bin: ${rom.length} bytes, want 16384`);
mcu.loadBootrom(new Uint32Array(rom.buffer.slice(rom.byteOffset, rom.byteOffset + rom.length)));

// UF2: 512-byte blocks; magic0 @0, magic1 @4, target address @12,
// payload size @16, payload @32, final magic @508.
const UF2_MAGIC0 = 0x0a324655, UF2_MAGIC1 = 0x9e5d5157, UF2_MAGIC_END = 0x0ab16f30;
const FLASH_BASE = 0x10000000;
const uf2 = readFileSync(join(buildDir, 'firmware.uf2'));
let blocks = 0;
for (let off = 0; off + 512 <= uf2.length; off += 512) {
  const dv = new DataView(uf2.buffer, uf2.byteOffset + off, 512);
  if (dv.getUint32(0, true) !== UF2_MAGIC0 || dv.getUint32(4, true) !== UF2_MAGIC1
      || dv.getUint32(508, true) !== UF2_MAGIC_END) continue;
  const addr = dv.getUint32(12, true), size = dv.getUint32(16, true);
  if (addr < FLASH_BASE || size > 476) throw new Error(`firmware.uf2: odd block at ${off}`);
  mcu.flash.set(uf2.subarray(off + 32, off + 32 + size), addr - FLASH_BASE);
  blocks++;
}
if (!blocks) throw new Error('firmware.uf2: no UF2 blocks');

const lines = readFileSync(scriptPath, 'utf8').split(/\r?\n/).filter((l) => l.length);
// rp2040js's USB CDC host side queues at most 512 bytes and drops the rest:
// a line and its CR LF must fit, or it reaches the board cut short.
const MAX_LINE = 510;
lines.forEach((l, i) => {
  const n = Buffer.byteLength(l, 'utf8');
  if (n > MAX_LINE) {
    console.error(`run.mjs: ${scriptPath}:${i + 1}: ${n} bytes, at most ${MAX_LINE} fit the emulated USB CDC`);
    process.exit(64);
  }
});

const t0 = Date.now();
const emulatedS = () => (sim.clock.nanos / 1e9).toFixed(3);
const summary = () => `emulated time ${emulatedS()} s, wall ${((Date.now() - t0) / 1000).toFixed(1)} s`;

const cdc = new USBCDC(mcu.usbCtrl);
const type = (s) => { for (const b of Buffer.from(s, 'utf8')) cdc.sendSerialByte(b); };
cdc.onDeviceConnected = () => type('\r\n'); // wake the REPL: it answers with a prompt

// A line is typed at a `>>> ` prompt that comes after the echo of the line
// before it: the prompt answering the wake-up CR (or a banner's) can arrive
// before or after the first line is typed, and must not make the runner
// type ahead or stop one line early.
const PROMPT = '>>> ';
let next = 0; // index of the next line to type
let since = ''; // printed since the last line was typed (latin1)
let echo = ''; // what that line's echo looks like
cdc.onSerialData = (buf) => {
  const s = Buffer.from(buf).toString('latin1');
  process.stdout.write(buf);
  since += s;
  if (!since.endsWith(PROMPT)) return;
  if (echo && !since.includes(echo)) return;
  if (next < lines.length) {
    const line = lines[next++];
    echo = Buffer.from(line, 'utf8').toString('latin1');
    since = '';
    type(line + '\r\n');
  } else {
    sim.stop();
    console.error(`\n[rp2emu] done: ${lines.length} lines, ${summary()}`);
    process.exit(0);
  }
};

setTimeout(() => {
  sim.stop();
  console.error(`\n[rp2emu] TIMEOUT after ${timeoutS} s wall (${next}/${lines.length} lines typed${echo && !since.includes(echo) ? `; line ${next} never echoed whole: too long?` : ''}); ${summary()}`);
  process.exit(2);
}, timeoutS * 1000);

mcu.core.PC = FLASH_BASE; // boot2 at the start of flash, as the bootrom would jump to
sim.execute();
