"""Small facts of the passes' and the compiler's helper analyses that no pipeline test
pins down (found by the seed-27 mutation sample, docs/testing.md): the register count of
a tensor type without a linear layout, the scale of a tile coordinate, the access bytes
choose-warps counts for pointer tensors, and the range of a signless integer type in the
index-width analysis."""

from __future__ import annotations

from pathlib import Path

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType, TensorType, f32, i32
from xdsl.ir import Block

import tilec
from tilec.compiler.index_bounds import _type_range
from tilec.dialects.layout_attrs import BlockedLayoutAttr
from tilec.dialects.layout_ptr import PtrLoadOp, PtrStoreOp
from tilec.passes._layout_cost import registers
from tilec.passes._tile_bounds import _scale_of
from tilec.passes.choose_warps import _access_bytes

POINTERS = Path(__file__).resolve().parents[1] / "filecheck" / "vectorize" / "pointers.mlir"


def test_a_tensor_type_without_a_linear_layout_counts_every_element():
    """A blocked layout over a shape that is no power of two has no linear form."""
    encoding = BlockedLayoutAttr(tilec.BlockedLayout([1, 1], [8, 4], [4, 1], [1, 0]))
    assert registers(TensorType(f32, [3, 5], encoding)) == 15


def test_the_scale_of_a_product_by_constants_is_their_product():
    block = Block(arg_types=[IndexType()])
    v = block.args[0]
    three = arith.ConstantOp(IntegerAttr(3, IndexType()))
    five = arith.ConstantOp(IntegerAttr(5, IndexType()))
    x = arith.MuliOp(v, three.result)
    y = arith.MuliOp(five.result, x.result)
    block.add_ops([three, five, x, y])
    assert _scale_of(v, v) == 1
    assert _scale_of(x.result, v) == 3
    assert _scale_of(y.result, v) == 15


def test_choose_warps_counts_a_pointer_tensors_bytes():
    """pointers.mlir's @contiguous moves 512 f32 through pointer tensors: 2048 bytes each way."""
    module = tilec.parse(POINTERS.read_text())
    func = next(o for o in module.ops if o.sym_name.data == "contiguous")
    ops = [o for o in func.walk() if isinstance(o, PtrLoadOp | PtrStoreOp)]
    assert len(ops) == 2 and [_access_bytes(o) for o in ops] == [2048, 2048]


def test_a_signless_integer_type_ranges_over_both_readings():
    assert _type_range(i32) == (-(2**31), 2**32 - 1)
    assert _type_range(IntegerType(8)) == (-128, 255)
