"""The `cuda` target: GPU-level modules printed as CUDA C++, checked as text and
compiled with NVRTC for sm_90 (no GPU needed)."""

from __future__ import annotations

import io
import re
import sys
from pathlib import Path

import pytest
from xdsl.builder import Builder
from xdsl.dialects import arith, gpu, memref, vector
from xdsl.dialects.builtin import (
    BFloat16Type,
    ComplexType,
    Float8E4M3FNUZType,
    Float80Type,
    FloatTF32Type,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    StringAttr,
    UnitAttr,
    VectorType,
    f32,
    i1,
)
from xdsl.ir import Attribute, Block, Region
from xdsl.rewriter import InsertPoint

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import gpu_level_samples as S  # noqa: E402
from tilec.compiler.cuda import (  # noqa: E402
    CudaTarget,
    emit_cuda,
    kernel_infos,
)
from tilec.support.diagnostics import LOC_ATTR, TilecError  # noqa: E402
from tilec.runtime.nvrtc import (  # noqa: E402
    _parse_ptxas_log,
    compile_cuda,
    cubin_resource_usage,
    cuda_include_dirs,
    resource_usage,
)
from helpers.nvrtc import compile_sm90_or_skip  # noqa: E402

ARCH = "sm_90"
needs_headers = pytest.mark.skipif(
    not cuda_include_dirs(), reason="CUDA headers (cuda_fp16.h) not found: set CUDA_PATH"
)


def needs_headers_for(t: str):
    return [needs_headers] if t in ("f16", "bf16") else []


def dtype_params(types=S.ELEMENT_TYPES):
    return [pytest.param(t, marks=needs_headers_for(t), id=t) for t in types]


def assert_in_order(text: str, *needles: str) -> None:
    """Like a run of FileCheck CHECK lines: each needle occurs after the previous."""
    at = 0
    for needle in needles:
        found = text.find(needle, at)
        assert found >= 0, f"{needle!r} not found after offset {at} in:\n{text}"
        at = found + len(needle)


def cuda_of(module: ModuleOp) -> str:
    return emit_cuda(module)


def compiled(module: ModuleOp):
    source = cuda_of(module)
    return source, compile_cuda(source, arch=ARCH)


# ---------------------------------------------------------------- vector copy


def test_copy_f32_text():
    source = cuda_of(S.copy_1d("f32"))
    assert_in_order(
        source,
        "struct alignas(16) f32x4 { float v[4]; };",
        "// kernel copy_kernels::copy_kernel: 64-bit indices, block (256, 1, 1)",
        'extern "C" __global__ void __launch_bounds__(256)',
        "copy_kernel(const float* __restrict__ src, float* __restrict__ dst, long long n) {",
        "const long long bid = (long long)blockIdx.x;",
        "const long long tid = (long long)threadIdx.x;",
        "const long long base = bid * 1024;",
        "const bool full = end <= n;",
        "if (full) {",
        "// copy.py:7:3",
        "const f32x4 v = *reinterpret_cast<const f32x4*>(src + i);",
        "*reinterpret_cast<f32x4*>(dst + i) = v;",
        "} else {",
        "#pragma unroll",
        "for (long long k = 0; k < 4; ++k) {",
        "const bool in = j < n;",
        "// copy.py:8:3",
        "const float x = src[j];",
        "dst[j] = x;",
    )
    # One location comment per change of location, not one per op.
    assert source.count("// copy.py:7:3") == 1
    assert "#include" not in source  # f32 needs no header


@pytest.mark.parametrize("t", dtype_params())
def test_copy_each_dtype_compiles_to_vector_accesses(t):
    source, result = compiled(S.copy_1d(t))
    vec = 16 // S.ELEMENT_BYTES[t]
    assert f"struct alignas(16) {'bf16' if t == 'bf16' else t}x{vec}" in source
    width = "v2" if t in ("f64", "i64") else "v4"
    assert re.search(rf"ld\.global(\.nc)?\.{width}\.", result.ptx), result.ptx
    assert re.search(rf"st\.global\.{width}\.", result.ptx), result.ptx
    if t == "f16":
        assert "#include <cuda_fp16.h>" in source and "__half" in source
    if t == "bf16":
        assert "#include <cuda_bf16.h>" in source and "__nv_bfloat16" in source
    usage = resource_usage(result)
    assert set(usage) == {"copy_kernel"}
    assert usage["copy_kernel"].registers > 0
    assert usage["copy_kernel"].spill_stores in (0, None)  # None: NVRTC's own cache hit


def test_element_ctypes():
    expected = {
        "f16": "__half",
        "bf16": "__nv_bfloat16",
        "f32": "float",
        "f64": "double",
        "i8": "signed char",
        "i16": "short",
        "i32": "int",
        "i64": "long long",
    }
    for t, ctype in expected.items():
        source = cuda_of(S.copy_1d(t))
        assert f"(const {ctype}* __restrict__ src, {ctype}* __restrict__ dst" in source


# ---------------------------------------------------------------- shared memory


def test_transpose_text_and_ptx():
    source, result = compiled(S.transpose(70, 100))
    assert_in_order(
        source,
        "// kernel transpose_kernels::transpose_kernel: 32-bit indices, block (32, 8, 1)",
        'extern "C" __global__ void __launch_bounds__(256)',
        "transpose_kernel(const float* __restrict__ src, float* __restrict__ dst) {",
        "const int tx = (int)threadIdx.x;",
        "const int ty = (int)threadIdx.y;",
        "__shared__ alignas(16) float tile[1056];",
        "#pragma unroll",
        "for (int k = 0; k < 4; ++k) {",
        "const bool rin = row < 70;",
        "// transpose.py:5:3",
        "const float x = src[si];",
        "tile[ti] = x;",
        "__syncthreads();",
        "for (int k_1 = 0; k_1 < 4; ++k_1) {",
        "const float x_1 = tile[ti_1];",
        "// transpose.py:6:3",
        "dst[di] = x_1;",
    )
    assert "ld.shared.f32" in result.ptx and "st.shared.f32" in result.ptx
    assert "bar.sync" in result.ptx
    usage = resource_usage(result)["transpose_kernel"]
    assert usage.shared_bytes == 1056 * 4
    assert usage.barriers in (1, None)


@pytest.mark.parametrize("t", dtype_params(("f16", "f64", "i8")))
def test_transpose_other_dtypes_compile(t):
    _, result = compiled(S.transpose(40, 33, t))
    assert "bar.sync" in result.ptx


# ---------------------------------------------------------------- cp.async


def test_cp_async_text_and_ptx():
    source, result = compiled(S.cp_async_reverse())
    assert_in_order(
        source,
        "template <int Bytes>",
        "cp.async.cg.shared.global",
        "tilec_cp_async_commit()",
        "tilec_cp_async_wait()",
        "stage_kernel(const float* __restrict__ src, float* __restrict__ dst) {",
        "__shared__ alignas(16) float stage[512];",
        "// stage.py:4:3",
        "tilec_cp_async<16>(stage + local, src + gi);",
        "tilec_cp_async_commit();",
        "tilec_cp_async_wait<0>();",
        "__syncthreads();",
        "const float x = stage[r];",
    )
    assert_in_order(
        result.ptx,
        "cp.async.cg.shared.global",
        "cp.async.commit_group",
        "cp.async.wait_group 0",
        "bar.sync",
    )


@pytest.mark.parametrize("t", dtype_params())
def test_cp_async_each_dtype_compiles(t):
    _, result = compiled(S.cp_async_reverse(2, t))
    assert "cp.async.cg.shared.global" in result.ptx


def test_cp_async_small_copies_use_ca():
    _, result = compiled(S.cp_async_reverse(2, "f32", copy_bytes=4))
    assert "cp.async.ca.shared.global" in result.ptx


# ---------------------------------------------------------------- shuffles


@pytest.mark.parametrize("t", dtype_params())
def test_warp_shuffle_each_dtype(t):
    source, result = compiled(S.warp_reverse(8, t))
    assert "__shfl_sync(0xffffffffu, " in source
    assert "const int lane = (int)tilec_lane_id();" in source
    assert "shfl.sync.idx" in result.ptx
    assert "%laneid" in result.ptx


# ---------------------------------------------------------------- arith, vector, scf


@pytest.mark.parametrize("t", dtype_params())
def test_arith_zoo_compiles(t):
    source, result = compiled(S.arith_zoo(t))
    assert result.cubin
    if t in S.FLOAT_TYPES:
        assert "tilec_maximumf" in source and "tilec_bitcast" in source
    else:
        assert "tilec_floordiv" in source and "tilec_ceildiv(" in source


def test_arith_text():
    source = cuda_of(S.arith_zoo("i32"))
    assert "const int divui = (int)((unsigned int)a / (unsigned int)b);" in source
    assert "const int shrui = (int)((unsigned int)a >> (unsigned int)b);" in source
    assert "const int minui = (unsigned int)a < (unsigned int)b ? a : b;" in source
    assert "const bool cmp_uge = (unsigned int)a >= (unsigned int)b;" in source
    assert "const int m = a * (-7);" in source
    assert "const int swide = flag ? (int)-1 : 0;" in source
    source = cuda_of(S.arith_zoo("f32"))
    assert "const float k" not in source  # constants are inlined
    assert "const float sel_oeq = cmp_oeq ? a : 1.5f;" in source
    assert "const bool cmp_uno = (a != a || b != b);" in source
    assert "const float negf = -a;" in source
    source = cuda_of(S.arith_zoo("f16"))
    assert "__ushort_as_half((unsigned short)0x3e00)" in source  # 1.5 by its bits (NVVM folds it)
    assert (
        "static_cast<__half>(tilec_maximumf(static_cast<float>(a), static_cast<float>(b)))"
        in source
    )


@pytest.mark.parametrize("t", dtype_params(("f32", "f16", "bf16", "i32", "i16", "i8")))
def test_vector_ops(t):
    source, result = compiled(S.vector_ops(t))
    assert result.cubin
    if t == "f32":
        assert_in_order(
            source,
            "const f32x4 v = *reinterpret_cast<const f32x4*>(src + i);",
            "alignas(16) float regs[4];",
            "*reinterpret_cast<f32x4*>(regs + 0) = v;",
            "const f32x4 zeros = {{0.0f, 0.0f, 0.0f, 0.0f}};",
            "float sum = 0.0f;",
            "float other = 0.0f;",
            "for (long long k = 0; k < 4; ++k) {",
            "const float next = sum + x;",
            # the yield swaps its values: both are read before either is written
            "const float sum_next = other;",
            "const float other_next = next;",
            "sum = sum_next;",
            "other = other_next;",
            "const f32x4 b = {{total, total, total, total}};",
            "const float first = v.v[0];",
            "f32x4 w = b;",
            "w.v[1] = first;",
            "const float x3 = v.v[1];",
            "float larger;",
            "if (bigger) {",
            "larger = x2;",
            "} else {",
            "larger = x3b;",
            "const f32x4 w4 = in ? w3 : zeros;",
            "*reinterpret_cast<f32x4*>(out + i) = w4;",
        )


# ---------------------------------------------------------------- names, indices


def kernel_module(types: list[Attribute], names: list[str | None], body, kernel: bool = True,
                  modules: tuple[str, ...] = ("m",)) -> ModuleOp:
    """One `gpu.module` per name in `modules`, each holding `gpu.func @k` of arguments
    `types` named `names` (None: no name), built by `body(builder, *args)`: no host
    function and no known block size, shapes `GpuProgram` does not make."""
    kernels = []
    for name in modules:
        block = Block(arg_types=types)
        for a, n in zip(block.args, names):
            a.name_hint = n
        body(Builder(InsertPoint.at_end(block)), *block.args)
        block.add_op(gpu.ReturnOp([]))
        f = gpu.FuncOp("k", (types, []), Region(block), kernel=kernel or None)
        kernels.append(gpu.ModuleOp(StringAttr(name), Region(Block([f]))))  # type: ignore[arg-type]
    m = ModuleOp(kernels)
    m.attributes["gpu.container_module"] = UnitAttr()
    m.verify()
    return m


def _named(op, name: str | None):
    op.results[0].name_hint = name
    return op.results[0]


def names_module(size: int = 16, big_constant: bool = False, constant: int = 4294967296) -> ModuleOp:
    """Names CUDA cannot take as they are: no name, a keyword, a dot, a type's name, and
    two values hinted alike (`big_constant`: the thread id plus `constant`, 2**32, instead)."""
    buf = MemRefType(f32, [size])
    x_dim = gpu.DimensionAttr(gpu.DimensionEnum.X)

    def body(b: Builder, src, flt, ab):
        tid = _named(b.insert(gpu.ThreadIdOp(x_dim)), "tid")
        if big_constant:
            ab = _named(b.insert(arith.ConstantOp(IntegerAttr(constant, IndexType()))), "big")
        tid_1 = _named(b.insert(arith.AddiOp(tid, ab)), "tid_1")
        other = _named(b.insert(gpu.ThreadIdOp(x_dim)), None)
        v = _named(b.insert(memref.LoadOp.get(src, [tid])), "f32x4")
        x = _named(b.insert(arith.AddiOp(tid_1, other)), "x")
        b.insert(memref.StoreOp.get(v, flt, [x]))

    return kernel_module([buf, buf, IndexType()], [None, "float", "a.b"], body)


def test_names_are_sanitised_and_unique():
    source = cuda_of(names_module())
    assert_in_order(
        source,
        'extern "C" __global__ void\n',  # no known_block_size: no __launch_bounds__
        "k(const float* __restrict__ arg0, float* __restrict__ float_, int a_b) {",
        "const int tid = (int)threadIdx.x;",
        "const int tid_1 = tid + a_b;",
        "const int tid_2 = (int)threadIdx.x;",
        "const float f32x4_ = arg0[tid];",
        "const int x = tid_1 + tid_2;",
        "float_[x] = f32x4_;",
    )
    info = kernel_infos(names_module())["k"]
    assert [p.name for p in info.params] == ["arg0", "float_", "a_b"]
    assert [p.written for p in info.params] == [False, True, False]
    assert info.index_bits == 32
    assert info.block_size is None
    _ = compile_cuda(source, arch=ARCH)


def test_index_width():
    static_small = S.transpose(8, 8)
    assert kernel_infos(static_small)["transpose_kernel"].index_bits == 32
    dynamic = S.copy_1d()
    assert kernel_infos(dynamic)["copy_kernel"].index_bits == 64
    big = names_module(size=2147483648)
    info = kernel_infos(big)["k"]
    assert info.index_bits == 64
    assert "long long a_b" in cuda_of(big)
    source = cuda_of(names_module(big_constant=True))
    assert "const long long tid_1 = tid + 4294967296LL;" in source


@pytest.mark.parametrize("value,literal", [(-(2**63), "(-9223372036854775807LL - 1)"),
                                           (-(2**63) + 1, "(-9223372036854775807LL)"),
                                           (-(2**31), "(-2147483648)")])
def test_the_most_negative_64_bit_constant_is_written_as_c_can_read_it(value, literal):
    """C has no literal for -2^63 (9223372036854775808 does not fit a long long before
    the minus applies): it is written as (-9223372036854775807LL - 1); its neighbours and
    32-bit values are written as they are. NVRTC compiles each."""
    source = cuda_of(names_module(size=2147483648, big_constant=True, constant=value))
    assert f"tid + {literal};" in source
    _ = compile_cuda(source, arch=ARCH)


def test_kernel_infos_alignment():
    info = kernel_infos(S.copy_1d("f16"))["copy_kernel"]
    src, dst, n = info.params
    assert (src.dtype, src.alignment, src.written, src.num_elements) == ("float16", 16, False, None)
    assert (dst.alignment, dst.written) == (16, True)
    assert (n.dtype, n.is_buffer) == ("int64", False)
    info = kernel_infos(S.cp_async_reverse(2, "i8"))["stage_kernel"]
    assert info.params[0].alignment == 16 and info.params[0].num_elements == 2 * 128 * 16


# ---------------------------------------------------------------- errors

F32_16 = MemRefType(f32, [16])


def _nothing(b: Builder, *args) -> None:
    pass


def test_unsupported_op_is_named():
    def body(b: Builder, src):
        b.insert(memref.AllocOp.get(f32, shape=[4])).attributes[LOC_ATTR] = StringAttr("prog.py:3:9")

    with pytest.raises(TilecError) as e:
        cuda_of(kernel_module([F32_16], ["src"], body))
    message = str(e.value)
    assert "'memref.alloc' is not supported by the cuda target" in message
    assert message.startswith("prog.py:3:9: error:")
    assert e.value.op is not None and e.value.op.name == "memref.alloc"


ELEMENTS = {"f8E4M3FNUZ": Float8E4M3FNUZType(), "i4": IntegerType(4), "i1": i1, "complex<f32>": ComplexType(f32),
            "index": IndexType(), "f80": Float80Type(), "tf32": FloatTF32Type()}


@pytest.mark.parametrize("element", list(ELEMENTS))
def test_unsupported_element_type_is_refused(element):
    buf = MemRefType(ELEMENTS[element], [16])

    def body(b: Builder, src):
        c0 = _named(b.insert(arith.ConstantOp(IntegerAttr(0, IndexType()))), "c0")
        _named(b.insert(memref.LoadOp.get(src, [c0])), "x")

    module = kernel_module([buf], ["src"], body)
    with pytest.raises(TilecError) as e:
        emit_cuda(module)
    assert f"element type {element}" in str(e.value) or "is not supported" in str(e.value)
    assert "gpu.func" in str(e.value) or "memref.load" in str(e.value)


def test_oversized_vector_is_refused():
    def body(b: Builder, src):
        c0 = _named(b.insert(arith.ConstantOp(IntegerAttr(0, IndexType()))), "c0")
        _named(b.insert(vector.LoadOp(src, [c0], VectorType(f32, [8]))), "v")

    with pytest.raises(TilecError, match=r"'vector.load'.*32 bytes"):
        cuda_of(kernel_module([F32_16], ["src"], body))


def test_non_kernel_function_is_refused():
    with pytest.raises(TilecError, match="only kernels"):
        cuda_of(kernel_module([F32_16], ["src"], _nothing, kernel=False))


def test_duplicate_kernel_names_are_refused():
    with pytest.raises(TilecError, match="two kernels are named 'k'"):
        cuda_of(kernel_module([F32_16], ["src"], _nothing, modules=("m", "m2")))


def test_nvrtc_error_shows_log_and_source():
    source = "extern \"C\" __global__ void k(float* p) {\n  p[0] = 1.0f;\n  undefined_name = 2;\n  p[1] = 3.0f;\n}\n"
    with pytest.raises(TilecError) as e:
        compile_cuda(source, arch=ARCH)
    message = str(e.value)
    assert 'identifier "undefined_name" is undefined' in message
    assert ">     3 |   undefined_name = 2;" in message
    assert "      2 |   p[0] = 1.0f;" in message


# ---------------------------------------------------------------- resource usage


def test_resource_usage_parses_ptxas_lines():
    log = """ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'a' for 'sm_90'
ptxas info    : Function properties for a
ptxas         .     8 bytes stack frame, 4 bytes spill stores, 12 bytes spill loads
ptxas info    : Used 40 registers, used 1 barriers, 4224 bytes smem, 368 bytes cmem[0]
ptxas info    : Compiling entry function 'b' for 'sm_90'
ptxas info    : Function properties for b
ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 8 registers, used 0 barriers
"""
    usage = resource_usage(log)
    assert usage["a"].registers == 40
    assert (usage["a"].spill_stores, usage["a"].spill_loads, usage["a"].stack_bytes) == (4, 12, 8)
    assert (usage["a"].shared_bytes, usage["a"].barriers, usage["a"].constant_bytes) == (4224, 1, 368)
    assert usage["b"].registers == 8 and usage["b"].shared_bytes == 0


SPILLS = """
extern "C" __global__ void small(float* p) {
  __shared__ float s[10];
  s[threadIdx.x] = p[threadIdx.x];
  __syncthreads();
  p[threadIdx.x] = s[9 - threadIdx.x];
}
extern "C" __global__ void spill(float* p, int n) {
  float a[64];
  for (int i = 0; i < 64; ++i) a[i] = p[i * n];
  p[0] = a[n & 63];
}
"""


@pytest.mark.parametrize("arch", ["sm_75", "sm_80", "sm_90", "sm_120"])
def test_cubin_resource_usage_agrees_with_ptxas(arch):
    source = cuda_of(S.transpose()) + SPILLS
    result = compile_cuda(source, arch=arch, options=("--maxrregcount=32",))
    from_log = _parse_ptxas_log(result.log)
    if not from_log:
        pytest.skip("NVRTC served this program from its own cache: no ptxas report")
    from_cubin = cubin_resource_usage(result.cubin)
    assert set(from_cubin) == set(from_log) == {"small", "spill", "transpose_kernel"}
    for name, usage in from_log.items():
        other = from_cubin[name]
        assert (other.registers, other.shared_bytes, other.stack_bytes) == (
            usage.registers,
            usage.shared_bytes,
            usage.stack_bytes,
        )
        assert other.spill_stores is None
    assert from_log["spill"].spill_stores > 0 and from_log["spill"].stack_bytes > 0
    assert from_log["small"].shared_bytes == 40
    # A log without ptxas lines (NVRTC's cache) falls back to the cubin.
    cached = type(result)(result.cubin, result.ptx, "", result.arch, result.options)
    assert resource_usage(cached)["transpose_kernel"].shared_bytes == 4224


# ---------------------------------------------------------------- the xDSL target


def test_target_registration_with_xdsl_opt_main(tmp_path):
    """xDSL's own driver prints CUDA: the `xdsl.universe` entry point (api/universe.py)
    registers the `cuda` dialect and target."""
    from xdsl.xdsl_opt_main import xDSLOptMain

    path = tmp_path / "stage.mlir"
    path.write_text(str(S.cp_async_reverse()))  # the built module, printed for the command line
    out = tmp_path / "stage.cu"
    xDSLOptMain(args=[str(path), "-t", "cuda", "-o", str(out)]).run()
    assert out.read_text() == cuda_of(S.cp_async_reverse())


def test_target_emit_writes_the_text():
    stream = io.StringIO()
    module = S.copy_1d()
    CudaTarget().emit(None, module, stream)  # type: ignore[arg-type]
    assert stream.getvalue() == emit_cuda(module)


@pytest.mark.parametrize("pipeline,comments", [
    ("lower-convert-layout,lower-to-gpu", 4),
    ("lower-convert-layout{shuffle=off},lower-to-gpu", 4),
    ("lower-convert-layout{shuffle=off smem_layout=plain},lower-to-gpu", 3),
])
def test_conversion_comment_kernels_compile_with_nvrtc(pipeline, comments):
    """tests/filecheck/cuda/conversion_comments.mlir under each of its RUN pipelines:
    every conversion states its lowering in a comment, and the CUDA compiles. The file
    has three conversions; with the swizzled shared-memory layout the 2-byte round trip
    first renames its registers (a conversion in registers of its own, for wider
    conflict-free shared-memory writes), so those pipelines print four comments."""
    from pathlib import Path

    from tilec.compiler.pipeline import emit, parse_module, run_pipeline

    path = Path(__file__).resolve().parents[1] / "filecheck" / "cuda" / "conversion_comments.mlir"
    m = parse_module(path.read_text(), path.name)
    run_pipeline(m, pipeline)
    text = emit(m, "cuda")
    assert text.count("// convert_layout ") == comments
    compile_sm90_or_skip(text)


def test_shared_memory_past_48k_is_dynamic_and_compiles():
    """The 128x128 Gluon in/out conversion needs 64 KiB of shared memory: the kernel
    declares it dynamic (a static declaration fails in ptxas), the launcher learns the
    size from KernelInfo, and NVRTC compiles it for sm_90."""
    from tilec.compiler.cuda import kernel_infos
    from tilec.compiler.pipeline import emit, parse_module, run_pipeline
    from tilec.runtime.nvrtc import compile_cuda, resource_usage

    path = Path(__file__).resolve().parents[1] / "filecheck" / "cuda" / "dynamic_smem.mlir"
    m = parse_module(path.read_text(), path.name)
    run_pipeline(m, "default")
    (info,) = kernel_infos(m).values()
    assert info.dynamic_smem_bytes == 128 * 128 * 4
    text = emit(m, "cuda")
    assert "extern __shared__" in text and "__shared__ alignas" not in text
    usage = resource_usage(compile_cuda(text, arch="sm_90"))
    assert usage[info.name].shared_bytes == 0  # nothing static left


def test_shared_buffers_share_one_arena_and_too_much_is_refused():
    """Two shared buffers of a kernel over 48 KiB get 16-byte-aligned offsets in one
    dynamic arena; together past 227 KiB they are a located error, not a ptxas one."""
    import tilec
    from tilec.compiler.pipeline import emit, run_pipeline

    def program(n):
        p = tilec.Program("two")
        a = p.view(p.pointer("src", "f32", align=16), f"({n}):(1)")
        b = p.view(p.pointer("dst", "f32", align=16), f"({n}):(1)")
        with p.launch(grid=(1, 1, 1), threads=256):
            s = p.alloc(f"({n}):(1)", "f32", "smem")
            t = p.alloc(f"({n}):(1)", "f32", "smem")
            p.copy(a, s)
            p.copy(s, t)
            p.copy(t, b)
        return p.module

    m = program(8192 + 3)
    run_pipeline(m, "default")
    text = emit(m, "cuda")
    assert "reinterpret_cast<float*>(tilec_smem + 0);" in text
    assert "reinterpret_cast<float*>(tilec_smem + 32784);" in text  # 32780 rounded up to 16
    m = program(40000)
    run_pipeline(m, "default")
    with pytest.raises(TilecError, match="needs 320000 bytes of shared memory"):
        emit(m, "cuda")


def test_reciprocal_division_is_x_times_one_over_y_on_both_backends():
    """`arith.divf {fastmath<arcp>}` on f32 (tests/filecheck/cuda/divf_arcp.mlir,
    `@divide`): the reference executor's quotient is `x * (1 / y)` rounded at each step,
    bit for bit, which is not always IEEE `x / y`; without arcp it is `x / y`. The CUDA
    of the whole file compiles under NVRTC."""
    import numpy as np

    from tilec.compiler.pipeline import emit, parse_module, run_pipeline
    from tilec.runtime.reference.api import run

    path = Path(__file__).resolve().parents[1] / "filecheck" / "cuda" / "divf_arcp.mlir"
    rng = np.random.default_rng(7)
    x = rng.standard_normal(128).astype(np.float32)
    y = (rng.standard_normal(128) * 100).astype(np.float32)
    poison = np.full(128, np.nan, np.float32)
    out = run(parse_module(path.read_text(), path.name),
              {"p": x, "q": y, "r": poison.copy(), "w": poison.copy()}, entry="divide")
    recip = x * (np.float32(1) / y)
    assert np.array_equal(out["r"].view(np.uint32), recip.view(np.uint32))
    assert np.array_equal(out["w"].view(np.uint32), (x / y).view(np.uint32))
    assert not np.array_equal(recip, x / y)  # the forms differ somewhere: the test sees which ran
    m = parse_module(path.read_text(), path.name)
    run_pipeline(m, "default")
    compile_sm90_or_skip(emit(m, "cuda"))


def test_approximate_division_is_div_approx_on_the_gpu_and_x_over_y_on_the_reference():
    """`arith.divf {fastmath<afn>}` on f32 (tests/filecheck/cuda/divf_afn.mlir): the
    CUDA prints `tilec_div_approx_ftz` (PTX `div.approx.ftz.f32`) for it alone, while
    `fast` keeps `x * (1 / y)` and f64 / f16 their division; the reference executor's
    quotient is IEEE `x / y` bit for bit; `--check` cannot bound the approximation
    (`ulp_budget` is None); the CUDA compiles under NVRTC and its kernel spills nothing."""
    import numpy as np

    from tilec.compiler.pipeline import emit, parse_module, run_pipeline
    from tilec.dialects.math_functions import ulp_budget
    from tilec.runtime.reference.api import run

    path = Path(__file__).resolve().parents[1] / "filecheck" / "cuda" / "divf_afn.mlir"
    rng = np.random.default_rng(11)
    x = rng.standard_normal(128).astype(np.float32)
    y = (rng.standard_normal(128) * 100).astype(np.float32)
    poison = np.full(128, np.nan, np.float32)
    ins = {"p": x.copy(), "q": y, "r": poison.copy(), "w": poison.copy(),
           "dp": np.ones(128), "hp": np.ones(128, np.float16)}
    out = run(parse_module(path.read_text(), path.name), ins, entry="approx_divide")
    assert np.array_equal(out["p"].view(np.uint32), (x / y).view(np.uint32))
    assert np.array_equal(out["r"].view(np.uint32), (x * (np.float32(1) / y)).view(np.uint32))
    module = parse_module(path.read_text(), path.name)
    assert ulp_budget(module) is None
    run_pipeline(module, "default")
    src = emit(module, "cuda")
    assert src.count("tilec_div_approx_ftz(x") == 4  # the f32 afn quotients of the thread's 4 elements
    assert all(r.spill_stores == 0 for r in resource_usage(compile_sm90_or_skip(src)).values())


def test_cubin_resource_usage_names_kernels_only():
    """ptxas may keep a 64-bit division a subroutine beside the kernel in its section
    (`$__internal_..._div_u64`); the kernels read from the cubin are the kernels."""
    source = """
extern "C" __global__ void divide(unsigned long long* p, unsigned long long n) {
  unsigned long long x = p[threadIdx.x];
  for (int i = 0; i < 4; ++i) x = x / (n + i) + p[x & 7];
  p[threadIdx.x] = x;
}
"""
    result = compile_cuda(source, arch="sm_90")
    assert set(cubin_resource_usage(result.cubin)) == {"divide"}
