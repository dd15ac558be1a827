// Runs the exported example once in onnxruntime and prints its output
// shapes: proof that the example model loads and runs. The example MLP
// (examples/make_example.py) takes one float32 input of shape [2, 8].
const ort = require('onnxruntime-node');
(async () => {
  const s = await ort.InferenceSession.create(process.argv[2]);
  const dims = [2, 8];
  const data = Float32Array.from({ length: dims[0] * dims[1] }, (_, i) => Math.sin(i));
  const feeds = {};
  for (const name of s.inputNames) feeds[name] = new ort.Tensor('float32', data, dims);
  const out = await s.run(feeds);
  for (const [k, v] of Object.entries(out))
    console.log(`onnxruntime ran it: output ${k} shape [${v.dims.join(', ')}]`);
})().catch((e) => { console.error('onnxruntime failed:', e.message); process.exit(1); });
