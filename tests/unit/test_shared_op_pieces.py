"""The one copy of pieces several ops, lowerings and reference implementations shared
as copies until tidy47: `layout_compute.TensorToTensorOp`, `view_syntax.print_operands_types`,
`registers.registers_by_coordinate` and the reference executor's `_uniform_int`."""

from __future__ import annotations

import io

import numpy as np
import pytest
from xdsl.dialects import test
from xdsl.dialects.builtin import UnitAttr, f32, i32
from xdsl.printer import Printer
from xdsl.traits import Pure

from tilec.dialects import layout
from tilec.dialects import layout_compute as lc
from tilec.dialects.distributed import BlockedLayout
from tilec.dialects.layout_compute import TensorToTensorOp
from tilec.dialects.view_syntax import print_operands_types
from tilec.passes.lower_to_gpu.registers import reg_coords, registers_by_coordinate
from tilec.runtime.reference.errors import ExecutionError
from tilec.runtime.reference.executor import _uniform_int


@pytest.mark.parametrize("cls", [layout.ConvertLayoutOp, layout.ExpandDimsOp, layout.BroadcastOp,
                                 layout.ReduceOp, lc.PermuteOp, lc.ReshapeOp])
def test_tensor_to_tensor_ops_take_one_source_and_give_one_result(cls):
    d = cls.get_irdl_definition()
    assert issubclass(cls, TensorToTensorOp)
    assert [n for n, _ in d.operands] == ["source"] and [n for n, _ in d.results] == ["result"]
    assert cls.has_trait(Pure)


def _printed(op, operands, types, result_type=None) -> str:
    out = io.StringIO()
    print_operands_types(Printer(stream=out), op, operands, types, result_type)
    return out.getvalue()


def test_print_operands_types_writes_operands_attributes_then_types():
    a, b = test.TestOp(result_types=[i32, f32]).results
    assert _printed(test.TestOp(operands=[a, b], attributes={"k": UnitAttr()}), [a, b], [i32, f32], f32) \
        == " %0, %1 {k} : i32, f32 -> f32"
    assert _printed(test.TestOp(operands=[a]), [a], [i32]) == " %0 : i32"


def test_registers_by_coordinate_lists_each_coordinates_registers_in_order():
    ll = BlockedLayout([2, 2], [8, 4], [1, 1], [1, 0]).to_linear([32, 16])  # 16 registers a thread
    table = registers_by_coordinate(ll)
    assert sum(len(rs) for rs in table.values()) == ll.num_registers
    for c, rs in table.items():
        assert rs == sorted(rs) and all(reg_coords(ll)[r] == c for r in rs)


def test_uniform_int_refuses_a_value_per_thread():
    assert _uniform_int(None, np.int64(7), "an extent") == 7
    with pytest.raises(ExecutionError, match="an extent differs per thread"):
        _uniform_int(test.TestOp(), np.arange(4), "an extent")
