#!/usr/bin/env python3
"""Writes deep or huge TorchScript IR inputs for onnxexp's limit tests.

  gen_deep.py KIND N OUT.ir

KIND is one of
  if      N prim::If nested in each other's then-block; the innermost
          computes aten::relu of the graph input
  loop    N prim::Loop nested in each other's body
  chain   a flat graph of N nodes (aten::add / aten::relu / aten::mul)
  noop_chain  N nodes alternating aten::relu and a no-op aten::reshape
  tuple   a tuple nested N deep, (Tensor, (Tensor, (... Tensor))), built
          by N prim::TupleConstruct and returned (each node declares its
          type, so the text is quadratic in N: keep N small)
  tuple_type  an unused value declared with that type
  list    an unused value typed int[][]...[] (N suffixes)
  optional an unused value typed Tensor??...? (N suffixes)
  rank    a graph input of rank N
  attr    a constant whose attribute value nests N brackets: [[[...1...]]]
  name    one value whose name is N characters long

Indentation is not significant to the IR grammar, so nesting indents at
most INDENT_CAP levels: 100,000-deep files stay linear in size.
"""
import sys

TENSOR = "Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu)"
INDENT_CAP = 32


def ind(depth):
    return "  " * (1 + min(depth, INDENT_CAP))


def gen_if(n, w):
    w("graph(%x.1 : " + TENSOR + ",\n      %c.1 : bool):\n")
    for d in range(n):
        w(f"{ind(2 * d)}%y{d} : {TENSOR} = prim::If(%c.1)\n")
        w(f"{ind(2 * d + 1)}block0():\n")
    w(f"{ind(2 * n)}%y{n} : {TENSOR} = aten::relu(%x.1)\n")
    for d in reversed(range(n)):
        w(f"{ind(2 * d + 2)}-> (%y{d + 1})\n")
        w(f"{ind(2 * d + 1)}block1():\n")
        w(f"{ind(2 * d + 2)}-> (%x.1)\n")
    w("  return (%y0)\n")


def gen_loop(n, w):
    w("graph(%x.1 : " + TENSOR + "):\n")
    w("  %t : bool = prim::Constant[value=1]()\n")
    w("  %n : int = prim::Constant[value=2]()\n")
    w("  %a0 : " + TENSOR + " = aten::relu(%x.1)\n")
    for d in range(n):
        w(f"{ind(2 * d)}%a{d + 1}.o : {TENSOR} = prim::Loop(%n, %t, %a{d})\n")
        w(f"{ind(2 * d + 1)}block0(%i{d} : int, %a{d + 1} : {TENSOR}):\n")
    w(f"{ind(2 * n)}%r : {TENSOR} = aten::relu(%a{n})\n")
    for d in reversed(range(n)):
        out = "%r" if d == n - 1 else f"%a{d + 2}.o"
        w(f"{ind(2 * d + 2)}-> (%t, {out})\n")
    w("  return (%a1.o)\n" if n else "  return (%a0)\n")


def gen_chain(n, w):
    w("graph(%x.1 : " + TENSOR + "):\n")
    w("  %one : int = prim::Constant[value=1]()\n")
    prev = "%x.1"
    for i in range(n):
        k = i % 3
        if k == 0:
            w(f"  %v{i} : {TENSOR} = aten::add({prev}, %x.1, %one)\n")
        elif k == 1:
            w(f"  %v{i} : {TENSOR} = aten::relu({prev})\n")
        else:
            w(f"  %v{i} : {TENSOR} = aten::mul({prev}, %x.1)\n")
        prev = f"%v{i}"
    w(f"  return ({prev})\n")


def gen_noop_chain(n, w):
    """aten::relu and aten::reshape to the shape the tensor has, which the
    exporter drops: one value replaced per node."""
    w("graph(%x.1 : " + TENSOR + "):\n")
    w("  %s : int[] = prim::Constant[value=[2, 3]]()\n")
    prev = "%x.1"
    for i in range(n):
        op = f"aten::relu({prev})" if i % 2 == 0 else \
            f"aten::reshape({prev}, %s)"
        w(f"  %v{i} : {TENSOR} = {op}\n")
        prev = f"%v{i}"
    w(f"  return ({prev})\n")


def nested_tuple(n):
    return "(Tensor, " * n + "Tensor" + ")" * n


def gen_tuple(n, w):
    """A real tuple nested n deep, returned: the exporter flattens it."""
    w("graph(%x.1 : " + TENSOR + "):\n")
    w("  %t0 : Tensor = aten::relu(%x.1)\n")
    for d in range(1, n + 1):
        w(f"  %t{d} : {nested_tuple(d)} = "
          f"prim::TupleConstruct(%x.1, %t{d - 1})\n")
    w(f"  return (%t{n})\n")


def gen_type(ty):
    """A node output declared with the type ty(n), unused."""
    def gen(n, w):
        w("graph(%x.1 : " + TENSOR + "):\n")
        w(f"  %t : {ty(n)} = prim::Uninitialized()\n")
        w("  %y : " + TENSOR + " = aten::relu(%x.1)\n")
        w("  return (%y)\n")
    return gen


def gen_rank(n, w):
    """A graph input of rank n, every size 1."""
    ty = "Float(" + ", ".join(["1"] * n) + ")"
    w(f"graph(%x.1 : {ty}):\n")
    w(f"  %y : {ty} = aten::relu(%x.1)\n")
    w("  return (%y)\n")


def gen_attr(n, w):
    w("graph(%x.1 : " + TENSOR + "):\n")
    w("  %k : int[] = prim::Constant[value=" + "[" * n + "1" + "]" * n +
      "]()\n")
    w("  %y : " + TENSOR + " = aten::relu(%x.1)\n")
    w("  return (%y)\n")


def gen_name(n, w):
    name = "v" * n
    w("graph(%x.1 : " + TENSOR + "):\n")
    w(f"  %{name} : {TENSOR} = aten::relu(%x.1)\n")
    w(f"  return (%{name})\n")


KINDS = {
    "if": gen_if,
    "loop": gen_loop,
    "chain": gen_chain,
    "noop_chain": gen_noop_chain,
    "tuple": gen_tuple,
    "tuple_type": gen_type(nested_tuple),
    "list": gen_type(lambda n: "int" + "[]" * n),
    "optional": gen_type(lambda n: "Tensor" + "?" * n),
    "rank": gen_rank,
    "attr": gen_attr,
    "name": gen_name,
}


def write(kind, n, path):
    with open(path, "w", buffering=1 << 20) as f:
        KINDS[kind](n, f.write)


def main(argv):
    if len(argv) != 4 or argv[1] not in KINDS:
        sys.stderr.write(__doc__)
        return 2
    write(argv[1], int(argv[2]), argv[3])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
