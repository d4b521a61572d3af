// Loaded into the service by embedded-memory.ts (node --expose-gc --require): on SIGUSR2 it collects
// all garbage and writes one line to standard error, `memory-probe {...}`: V8's heaps, the
// ArrayBuffers and each WebAssembly memory still alive, in bytes, of the main thread and of every
// worker thread (PGlite runs on one), which load this file too and answer over a BroadcastChannel. A memory's size cannot be read
// from outside the process, and PGlite and Prisma make theirs themselves, so the ways to make one
// are wrapped here, before any module loads.
const v8 = require('node:v8');
const { writeSync } = require('node:fs');
const { isMainThread } = require('node:worker_threads');

/** How long the main thread waits for the workers' figures; a worker stuck in WebAssembly is left out. */
const WORKERS_ANSWER_MS = 500;

/** Weak: a memory whose instance is gone (initdb's, PGlite's temporary one) must be seen gone. */
const memories = [];
const NativeMemory = WebAssembly.Memory;
const keepExported = (exports) => {
  for (const value of Object.values(exports)) if (value instanceof NativeMemory) memories.push(new WeakRef(value));
};

WebAssembly.Memory = class Memory extends NativeMemory {
  constructor(descriptor) {
    super(descriptor);
    memories.push(new WeakRef(this));
  }
};
// A module that declares its own memory exports it: wasm-bindgen's (the migration engine, Prisma's
// query compiler), instantiated asynchronously or not.
const instantiate = WebAssembly.instantiate;
WebAssembly.instantiate = async function (...args) {
  const result = await instantiate.apply(this, args);
  keepExported((result.instance ?? result).exports);
  return result;
};
WebAssembly.Instance = class Instance extends WebAssembly.Instance {
  constructor(module, imports) {
    super(module, imports);
    keepExported(this.exports);
  }
};

/** This thread's figures, after a full collection. */
function figures() {
  global.gc?.();
  const alive = new Set(memories.map((memory) => memory.deref()).filter((memory) => memory !== undefined));
  return {
    v8Heap: v8.getHeapStatistics().total_physical_size,
    // A closed instance's memory may still be referenced, with nothing in it.
    wasmMemories: [...alive].map((memory) => memory.buffer.byteLength).filter((bytes) => bytes > 0),
  };
}

const channel = new BroadcastChannel('memory-probe');
channel.unref();
if (isMainThread) {
  process.on('SIGUSR2', () => {
    const report = { ...figures(), arrayBuffers: process.memoryUsage().arrayBuffers };
    channel.onmessage = ({ data }) => {
      if (data.type !== 'figures') return;
      report.v8Heap += data.v8Heap;
      report.wasmMemories.push(...data.wasmMemories);
    };
    channel.postMessage({ type: 'ask' });
    setTimeout(() => writeSync(2, `memory-probe ${JSON.stringify(report)}\n`), WORKERS_ANSWER_MS);
  });
} else {
  channel.onmessage = ({ data }) => {
    if (data.type === 'ask') channel.postMessage({ type: 'figures', ...figures() });
  };
}
