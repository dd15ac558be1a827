#!/usr/bin/env python3
"""sweep_extremes.py OUT_DIR IR...: variants of IR files with extreme
constants, for replay_fuzz_export (one file at a time, to see every site).

Mutation fuzzing rarely turns a size into 2^62 or a float into inf at
exactly the constant that feeds a shape; this does it to all of them at
once: every `int` constant set to each of 2^62, INT64_MAX, INT64_MIN, 2^31,
0, -1, -2; every `float` constant to inf, -inf, nan, 1e308; and every
static dim of 1 to 0 (empty tensors). It found most of the crash-extreme-*
inputs of corpus/fuzz_export."""
import os
import re
import sys

INTS = {'big': '4611686018427387904', 'max': '9223372036854775807',
        'min': '-9223372036854775808', 'i31': '2147483648', 'zero': '0',
        'neg': '-1', 'm2': '-2'}
FLOATS = {'inf': 'inf', 'ninf': '-inf', 'nan': 'nan', 'huge': '1e+308'}
INT_CONST = re.compile(r'(: int = prim::Constant\[value=)(-?\d+)(\])')
FLOAT_CONST = re.compile(r'(: float = prim::Constant\[value=)([^\]]+)(\])')
TENSOR_TYPE = re.compile(
    r'(?<!::)\b(Float|Double|Half|Long|Int|Bool)\(([^()]*)\)')


def zero_ones(m):
    parts = [p.strip() for p in m.group(2).split(',')] if m.group(2).strip() else []
    return m.group(1) + '(' + ', '.join('0' if p == '1' else p for p in parts) + ')'


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for path in sys.argv[2:]:
        text = open(path).read()
        base = os.path.splitext(os.path.basename(path))[0]
        variants = {}
        for k, v in INTS.items():
            variants['i' + k] = INT_CONST.sub(lambda m: m.group(1) + v + m.group(3), text)
        for k, v in FLOATS.items():
            variants['f' + k] = FLOAT_CONST.sub(lambda m: m.group(1) + v + m.group(3), text)
        variants['dzero'] = TENSOR_TYPE.sub(zero_ones, text)
        for k, v in variants.items():
            if v != text:
                with open(os.path.join(out, '%s.%s.ir' % (base, k)), 'w') as f:
                    f.write(v)


if __name__ == '__main__':
    main()
