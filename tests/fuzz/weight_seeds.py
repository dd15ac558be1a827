#!/usr/bin/env python3
"""weight_seeds.py FIXTURES OUT: seeds for fuzz_export that carry weights.

For each fixture directory of FIXTURES (made by tests/fixtures/gen_fixtures.py)
that has a model.safetensors, writes OUT/<fixture>.irst: model.ir, then
fuzz_export.c's weights mark, then the sidecar's bytes. Fixtures whose seed
would pass MAX_LEN bytes (fuzz.sh's -max_len) are left out. Merge the seeds
into the committed corpus with -merge=1 (tests/fuzz/README.md)."""
import os
import sys

WEIGHTS_MARK = b'\0safetensors\0'  # as fuzz_export.c's WEIGHTS_MARK
MAX_LEN = 16384


def main():
    fixtures, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    written = 0
    for name in sorted(os.listdir(fixtures)):
        d = os.path.join(fixtures, name)
        ir, st = os.path.join(d, 'model.ir'), os.path.join(d, 'model.safetensors')
        if not (os.path.isfile(ir) and os.path.isfile(st)):
            continue
        with open(ir, 'rb') as f:
            seed = f.read()
        with open(st, 'rb') as f:
            seed += WEIGHTS_MARK + f.read()
        if len(seed) > MAX_LEN:
            continue
        with open(os.path.join(out, name + '.irst'), 'wb') as f:
            f.write(seed)
        written += 1
    print('%d seeds in %s' % (written, out))


if __name__ == '__main__':
    main()
