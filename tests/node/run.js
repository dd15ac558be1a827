#!/usr/bin/env node
// Batch onnxruntime runner for the round-trip tests.
//
//   node tests/node/run.js JOBS.json
//   node tests/node/run.js -          (streaming: one job per stdin line)
//
// JOBS.json: [{"model": "m.onnx", "inputs": "in.safetensors", "outputs": "out.safetensors"}, ...]
// Each job: load the model (CPU, graphOptimizationLevel 'all'), feed the
// tensors of `inputs` by graph input name, write every output (in the model's
// output order, keyed out0, out1, ...) to `outputs` as safetensors, and print
// one JSON line: {"model": ..., "ok": true, ...} or {"model": ..., "ok": false, "error": ...}.
// A job may set "optimization" (onnxruntime's graphOptimizationLevel:
// disabled, basic, extended, all; default all).
// A failing job never stops the batch. Exit status: 0 if every job ran, 1 if
// any failed, 2 on bad usage.
// With `-`, jobs come one JSON object per line on stdin and each answer line
// is written as soon as the job is done, so one process serves a whole run
// (tests/difftest); a job may also carry "id", echoed in its answer.
'use strict';

const fs = require('fs');
const path = require('path');
const ort = require(path.join(__dirname, 'node_modules', 'onnxruntime-node'));

// safetensors dtype <-> onnxruntime tensor type and typed array
const DTYPES = {
  F32: ['float32', Float32Array],
  F64: ['float64', Float64Array],
  I64: ['int64', BigInt64Array],
  I32: ['int32', Int32Array],
  I16: ['int16', Int16Array],
  I8: ['int8', Int8Array],
  U8: ['uint8', Uint8Array],
  U16: ['uint16', Uint16Array],
  U32: ['uint32', Uint32Array],
  U64: ['uint64', BigUint64Array],
  BOOL: ['bool', Uint8Array],
  F16: ['float16', Uint16Array],
};
const ORT_TO_ST = {};
for (const [st, [t]] of Object.entries(DTYPES)) ORT_TO_ST[t] = st;

function readSafetensors(file) {
  const buf = fs.readFileSync(file);
  if (buf.length < 8) throw new Error(`${file}: too short for safetensors`);
  const n = Number(buf.readBigUInt64LE(0));
  if (8 + n > buf.length) throw new Error(`${file}: header length ${n} past end of file`);
  const header = JSON.parse(buf.subarray(8, 8 + n).toString('utf8'));
  const base = 8 + n;
  const out = {};
  for (const [name, info] of Object.entries(header)) {
    if (name === '__metadata__') continue;
    const dt = DTYPES[info.dtype];
    if (!dt) throw new Error(`${file}: ${name}: unsupported dtype ${info.dtype}`);
    const [type, Arr] = dt;
    const [b, e] = info.data_offsets;
    const count = info.shape.reduce((a, d) => a * d, 1);
    if (count * Arr.BYTES_PER_ELEMENT !== e - b)
      throw new Error(`${file}: ${name}: ${e - b} bytes for shape [${info.shape}] ${info.dtype}`);
    // copy into a fresh, aligned ArrayBuffer
    const bytes = new Uint8Array(e - b);
    bytes.set(buf.subarray(base + b, base + e));
    out[name] = new ort.Tensor(type, new Arr(bytes.buffer, 0, count), info.shape);
  }
  return out;
}

function tensorBytes(t) {
  const d = t.data;
  if (typeof d === 'string' || Array.isArray(d)) throw new Error(`cannot store ${t.type} tensors`);
  if (t.type === 'bool') {
    const u = new Uint8Array(d.length);
    for (let i = 0; i < d.length; i++) u[i] = d[i] ? 1 : 0;
    return Buffer.from(u.buffer);
  }
  return Buffer.from(d.buffer, d.byteOffset, d.byteLength);
}

function writeSafetensors(file, tensors) {
  const header = {};
  const blobs = [];
  let off = 0;
  for (const name of Object.keys(tensors).sort()) {
    const t = tensors[name];
    const st = ORT_TO_ST[t.type];
    if (!st) throw new Error(`output ${name}: unsupported type ${t.type}`);
    const raw = tensorBytes(t);
    header[name] = { dtype: st, shape: t.dims.map(Number), data_offsets: [off, off + raw.length] };
    blobs.push(raw);
    off += raw.length;
  }
  let h = JSON.stringify(header);
  while (Buffer.byteLength(h) % 8) h += ' ';
  const hb = Buffer.from(h, 'utf8');
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(hb.length));
  const tmp = file + '.tmp';
  fs.writeFileSync(tmp, Buffer.concat([len, hb, ...blobs]));
  fs.renameSync(tmp, file);
}

// The session of the last job's model: consecutive jobs on one model
// (a fixture's further input sets) reuse it instead of loading and
// optimizing the model again, which is most of a big model's time.
let cached = null;

async function sessionFor(model, optimization) {
  const level = optimization || 'all';
  if (cached && cached.model === model && cached.level === level) return cached.session;
  if (cached && cached.session.release) await cached.session.release();
  cached = null;
  const session = await ort.InferenceSession.create(model, {
    executionProviders: ['cpu'],
    graphOptimizationLevel: level,
    logSeverityLevel: 3,
  });
  cached = { model, level, session };
  return session;
}

async function runJob(job) {
  const t0 = Date.now();
  const session = await sessionFor(job.model, job.optimization);
  const given = job.inputs ? readSafetensors(job.inputs) : {};
  const feeds = {};
  const missing = [];
  for (const name of session.inputNames) {
    if (name in given) feeds[name] = given[name];
    else missing.push(name);
  }
  if (missing.length) throw new Error(`no data for model input(s): ${missing.join(', ')}`);
  const unused = Object.keys(given).filter((n) => !session.inputNames.includes(n));
  const results = await session.run(feeds);
  const outs = {};
  const info = [];
  session.outputNames.forEach((name, i) => {
    const t = results[name];
    outs['out' + i] = t;
    info.push({ name, type: t.type, dims: t.dims.map(Number) });
  });
  writeSafetensors(job.outputs, outs);
  const r = { model: job.model, ok: true, outputs: info, ms: Date.now() - t0 };
  if (unused.length) r.unused_inputs = unused;
  return r;
}

async function serve() {
  const rl = require('readline').createInterface({ input: process.stdin, terminal: false });
  let failed = 0;
  for await (const line of rl) {
    if (!line.trim()) continue;
    let job = null;
    let r;
    try {
      job = JSON.parse(line);
      r = await runJob(job);
    } catch (e) {
      failed++;
      r = { model: job && job.model, ok: false, error: String((e && e.message) || e).trim() };
    }
    if (job && job.id !== undefined) r.id = job.id;
    process.stdout.write(JSON.stringify(r) + '\n');
  }
  process.exitCode = failed ? 1 : 0;
}

async function main() {
  if (process.argv[2] === '-' && process.argv.length === 3) return serve();
  if (process.argv.length !== 3) {
    process.stderr.write('usage: node run.js JOBS.json\n');
    process.exit(2);
  }
  const jobs = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
  let failed = 0;
  for (const job of jobs) {
    let r;
    try {
      r = await runJob(job);
    } catch (e) {
      failed++;
      r = { model: job.model, ok: false, error: String((e && e.message) || e).trim() };
    }
    process.stdout.write(JSON.stringify(r) + '\n');
  }
  process.exitCode = failed ? 1 : 0;
}

main().catch((e) => {
  process.stderr.write(`run.js: ${e.stack || e}\n`);
  process.exit(2);
});
