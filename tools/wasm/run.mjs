// Runs a MicroPython script under MicroPython's webassembly port (a 32-bit
// build, the npm package @micropython/micropython-webassembly-pyscript,
// installed by host/tractor_table/wasm32.py with `npm ci` into build/wasm).
//
//   node tools/wasm/run.mjs MODULE_DIR [--heapsize BYTES] [--dir HOST=VIRTUAL]...
//        [--path VIRTUAL]... [--cwd VIRTUAL] SCRIPT [ARG...]
//
// MODULE_DIR: the folder that holds node_modules (build/wasm). Each --dir copies
// the files of a host folder (not its subfolders) into the port's in-memory
// file system; --path entries become sys.path (in order), --cwd the current
// folder; SCRIPT (a host file) runs as __main__ with sys.argv = [SCRIPT, ARG...].
// Exit status: 0, or 1 with the Python traceback on stderr.
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const argv = process.argv.slice(2);
const moduleDir = argv.shift();
let heapsize = 1024 * 1024;
const dirs = [];
const syspath = [];
let cwd = "/";
while (argv.length && argv[0].startsWith("--")) {
    const opt = argv.shift();
    const value = argv.shift();
    if (opt === "--heapsize") heapsize = parseInt(value, 10);
    else if (opt === "--dir") dirs.push(value.split("="));
    else if (opt === "--path") syspath.push(value);
    else if (opt === "--cwd") cwd = value;
    else {
        process.stderr.write(`run.mjs: unknown option ${opt}\n`);
        process.exit(2);
    }
}
const script = argv.shift();
const entry = path.join(moduleDir, "node_modules", "@micropython", "micropython-webassembly-pyscript", "micropython.mjs");
const { loadMicroPython } = await import(pathToFileURL(entry).href);
const mp = await loadMicroPython({
    heapsize,
    stdout: (d) => process.stdout.write(d),
    stderr: (d) => process.stderr.write(d),
    linebuffer: false,
});

function mkdirs(p) {
    let cur = "";
    for (const part of p.split("/").filter(Boolean)) {
        cur += "/" + part;
        try {
            mp.FS.mkdir(cur);
        } catch (e) {
            // exists already
        }
    }
}

for (const [host, virt] of dirs) {
    mkdirs(virt);
    for (const name of fs.readdirSync(host)) {
        const full = path.join(host, name);
        if (fs.statSync(full).isFile()) mp.FS.writeFile(`${virt}/${name}`, fs.readFileSync(full));
    }
}
mkdirs(cwd);
const setup = [
    `__import__("sys").path[:] = ${JSON.stringify(syspath)}`,
    `__import__("sys").argv[:] = ${JSON.stringify([script, ...argv])}`,
    `__import__("os").chdir(${JSON.stringify(cwd)})`,
].join("\n");
try {
    mp.runPython(setup);
    mp.runPython(fs.readFileSync(script, "utf8"));
    // A run driven by bench/heapprobe.py: resume it from the top level, where this
    // port collects garbage, until it ends.
    mp.runPython("_heapprobe_ = 'heapprobe' in __import__('sys').modules");
    if (mp.globals.get("_heapprobe_")) {
        const probe = mp.pyimport("heapprobe");
        while (probe.step()) {
            // each call enters after the collection the previous one asked for
        }
    }
} catch (error) {
    if (error.name !== "PythonError") throw error;
    if (error.type !== "SystemExit") {
        process.stderr.write(error.message);
        process.exit(1);
    }
}
