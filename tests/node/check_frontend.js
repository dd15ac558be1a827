// check_frontend.js MODEL: runs the model examples/frontend.c writes in
// onnxruntime and compares it with the same computation done here:
// z = y * sigmoid(beta * y), y = x W^T + b, with the example's weights.
const ort = require('onnxruntime-node');
(async () => {
  const s = await ort.InferenceSession.create(process.argv[2]);
  const x = Float32Array.from({ length: 8 }, (_, i) => Math.sin(i));
  const out = await s.run({ x: new ort.Tensor('float32', x, [2, 4]) });
  const z = out[s.outputNames[0]];
  if (z.dims.join(',') !== '2,3') throw new Error(`output dims [${z.dims}]`);
  const beta = 1.5;
  let worst = 0;
  for (let r = 0; r < 2; r++)
    for (let o = 0; o < 3; o++) {
      let y = Math.fround(0.1 * o);
      for (let k = 0; k < 4; k++) y += x[r * 4 + k] * Math.fround((o * 4 + k) / 10 - 0.5);
      const want = y / (1 + Math.exp(-beta * y));
      worst = Math.max(worst, Math.abs(want - z.data[r * 3 + o]));
    }
  if (worst > 1e-5) throw new Error(`max abs error ${worst}`);
  console.log(`onnxruntime ran ${process.argv[2]}: max abs error ${worst.toExponential(2)}`);
})().catch((e) => { console.error('check_frontend failed:', e.message); process.exit(1); });
