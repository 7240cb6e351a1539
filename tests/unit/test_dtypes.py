"""The one table of element types and dtypes (dialects/dtypes.py), and the tables the
builder, the CUDA target, the reference executor and the copy front end derive from it."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects.builtin import IndexType, IntegerType

from tilec.copy_key import ITEMSIZE
from tilec.compiler.builder_types import ELEMENT_TYPES, element_type
from tilec.compiler.cuda.c_types import SUPPORTED_ELEMENT_TYPES
from tilec.compiler.signature import numpy_dtype_name
from tilec.dialects.conversions import STORAGE, convert_values
from tilec.dialects.dtypes import DTYPES, ELEMENTS, bf16_to_f32, element_of, f32_to_bf16, operand_type_name
from tilec.runtime.reference.values import dtype_of


@pytest.mark.parametrize("name", list(ELEMENTS))
def test_each_element_type_round_trips_through_xdsl(name):
    e = ELEMENTS[name]
    assert element_of(e.attr()) is e
    assert str(e.attr()) == name
    assert e.storage.itemsize * 8 == e.bits
    assert dtype_of(e.attr()) == e.storage
    assert ELEMENT_TYPES[name] == e.attr()


def test_types_outside_the_table_have_no_entry():
    assert element_of(IntegerType(1)) is None
    assert element_of(IndexType()) is None


@pytest.mark.parametrize("name", list(DTYPES))
def test_each_dtype_has_one_size_and_storage(name):
    d = DTYPES[name]
    assert ITEMSIZE[name] == d.itemsize == d.element.bits // 8
    assert STORAGE[name] == d.element.name
    if d.values is not None:
        assert d.values.itemsize == d.itemsize


def test_derived_tables_name_the_same_dtypes():
    assert list(ITEMSIZE) == list(STORAGE) == list(DTYPES)
    assert SUPPORTED_ELEMENT_TYPES == "f16, bf16, f32, f64, i8, i16, i32, i64, f8E4M3FN, f8E5M2"
    assert element_type("float32") == ELEMENTS["f32"].attr()
    assert element_type("bfloat16") == ELEMENTS["bf16"].attr()
    assert numpy_dtype_name(ELEMENTS["bf16"].attr()) == "bfloat16"
    assert numpy_dtype_name(IntegerType(16)) == "int16"


def test_bfloat16_bits_round_to_nearest_even():
    values = np.array([1.0, -2.5, 1.00390625, 1.01171875, np.inf, np.nan], np.float32)
    bits = f32_to_bf16(values)
    assert bits.dtype == np.uint16
    assert bits[:5].tolist() == [0x3F80, 0xC020, 0x3F80, 0x3F82, 0x7F80]
    assert np.isnan(bf16_to_f32(bits[5]))
    assert bf16_to_f32(bits[:5]).tolist() == [1.0, -2.5, 1.0, 1.015625, np.inf]
    assert convert_values(values[:2], "float32", "bfloat16").tolist() == [0x3F80, 0xC020]


def test_operand_type_names_of_the_tensor_core_ops():
    """The names layout.mma, mma.sync and wgmma use: the short name, the 8-bit floats
    as PTX spells them, str(t) outside the table; and the subsets each op takes."""
    from xdsl.dialects.builtin import IndexType, IntegerType

    from tilec.dialects.cuda import mma_sync_kind_name
    from tilec.dialects.cuda_wgmma import wgmma_type_name

    names = {n: operand_type_name(e.attr()) for n, e in ELEMENTS.items()}
    assert names == {"f16": "f16", "bf16": "bf16", "f32": "f32", "f64": "f64", "i8": "i8", "i16": "i16",
                     "i32": "i32", "i64": "i64", "f8E4M3FN": "e4m3", "f8E5M2": "e5m2"}
    assert operand_type_name(IntegerType(1)) == "i1" and operand_type_name(IndexType()) == "index"
    assert [n for n, e in ELEMENTS.items() if wgmma_type_name(e.attr())] == ["f16", "bf16", "f8E4M3FN", "f8E5M2"]
    assert [n for n, e in ELEMENTS.items() if mma_sync_kind_name(e.attr())] == ["f16", "bf16", "f32", "i8"]


def test_the_front_ends_dtype_names_come_from_the_table():
    """tilec.matmul's reading of PyTorch/NumPy dtypes and the launcher's bit-pattern
    arrays for the floats NumPy lacks are both derived from DTYPES."""
    import numpy as np

    from tilec import gemm
    from tilec.runtime import launch

    assert [gemm._dtype_name(x) for x in (np.float16, "bfloat16", "torch.float8_e4m3fn", "float8_e5m2", "bf16")] \
        == ["f16", "bf16", "f8E4M3FN", "f8E5M2", "bf16"]
    assert gemm._dtype_name(np.int8) is None
    assert launch._BITS_OF == {"bfloat16": "uint16", "float8_e4m3fn": "uint8", "float8_e5m2": "uint8"}
