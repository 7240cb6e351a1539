"""What dev/device/sanitize.sh runs under compute-sanitizer, checked on the CPU: its
`--generate-only` half writes every input (random copy, mbarrier, cluster-ring,
split-K counter, DSMEM-sum and epilogue programs, epilogues with exp2 on the FMA pipe,
TMA rings clipped to a ragged tile's last box, the plain-loop GEMMs the passes
schedule, with their own pipelines), prints their CUDA and compiles it with NVRTC, and
compiles the kernel of each `--matmul` configuration (dev/device/matmul_check.py
--compile-only; FP8 ones too) and of each `--copy` pattern (dev/device/copy_check.py
--compile-only: the box kernels);
`gemm_bench.plain_source` gives the program as written and the pipeline `plain_kernel`
compiles it with (the rolled form: an mbarrier array in the CUDA; warp-specialised:
setmaxnreg)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _plain_source(spec: str, m: int, n: int, k: int) -> tuple[str, str]:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from gemm_bench import plain_source
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    return plain_source(spec, m, n, k)


@pytest.mark.parametrize(
    "spec, pipeline",
    [
        ("plain:128x256x64:4", "default"),
        ("plain:128x256x64:4:r", "software-pipeline{rolled=true},default"),
        ("plain:128x256x64:4:ws:r", "warp-specialize{rolled=true},default"),
        ("plain:128x128x64:3:ws:p2", "warp-specialize{persistent=2},default"),
    ],
)
def test_plain_source_is_the_program_and_its_pipeline(spec, pipeline):
    text, got = _plain_source(spec, 256, 512, 512)
    assert got == pipeline
    assert "layout.mbarrier_init" in text and "tilec.num_stages" in text
    assert "layout.mbarrier_array" not in text and "layout.warp_specialize" not in text  # the passes add them


def _nvrtc() -> bool:
    try:
        from tilec.runtime.nvrtc import nvrtc_version

        nvrtc_version()
        return True
    except (ImportError, OSError):
        return False


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_sanitize_generate_only_compiles_the_plain_gemms_and_generated_programs(tmp_path):
    if not _nvrtc():
        pytest.skip("NVRTC unavailable")
    gemms = "plain:64x64x64:2 plain:64x64x64:2:r plain:64x64x64:2:ws:r"
    r = subprocess.run(
        ["bash", "dev/device/sanitize.sh", "--generate-only", "--count", "0", "--mbarrier", "2", "--no-examples",
         "--cluster", "1", "--atomic", "1", "--dsmem", "1", "--epilogue", "1", "--ex2fma", "1", "--clipped", "1",
         "--gemm", gemms,
         "--gemm-shape", "128x128x256", "--matmul", "64x16x64:8:swapAB:splitK4:ser@1x1032x2048",
         "--copy", "int8:1000x1001:1x1000:+5"],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
        env={**os.environ, "OUT": str(tmp_path), "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"},
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert "every program printed CUDA that NVRTC compiles" in r.stdout
    gen = tmp_path / "sanitize" / "programs"
    assert sorted(p.name for p in gen.glob("*.mlir")) == [
        "atomic_000.mlir", "clipped_000.mlir", "cluster_000.mlir", "dsmem_000.mlir", "epilogue_000.mlir",
        "ex2fma_000.mlir", "gemm_128x128x256_0.mlir", "gemm_128x128x256_1.mlir", "gemm_128x128x256_2.mlir",
        "mbarrier_000.mlir", "mbarrier_001.mlir",
    ]
    assert "__cluster_dims__(" in (gen / "cluster_000.cu").read_text()
    assert ".gpu.global.add.u32" in (gen / "atomic_000.cu").read_text()
    assert "generated matmul_64x16x64_8_swapAB_splitK4_ser_1x1032x2048 (tilec.matmul)" in r.stdout
    assert "mapa.u64" in (gen / "dsmem_000.cu").read_text()
    assert "generated copy_int8_1000x1001_1x1000_p5" in r.stdout and "box<tiles>" in r.stdout
    assert "cuda.opaque" in r.stdout
    assert "tilec_ex2_fma(" in (gen / "ex2fma_000.cu").read_text()  # tilec.exp2_fma: cuda.ex2_fma
    clipped = (gen / "clipped_000.mlir").read_text()
    assert "tail=True" in clipped.splitlines()[1] and "{clip, tail}" in clipped  # a ragged tile's last box
    assert "-p software-pipeline{rolled=true},default" in r.stdout
    assert "-p warp-specialize{rolled=true},default" in r.stdout
    rolled, ws = (gen / "gemm_128x128x256_1.cu").read_text(), (gen / "gemm_128x128x256_2.cu").read_text()
    assert "mbars + " in rolled and "mbars + " in ws and "setmaxnreg" in ws
    for name in ("mbarrier_000", "mbarrier_001"):
        assert "tilec_mbarrier_wait" in (gen / f"{name}.cu").read_text()


def test_copy_check_forces_the_tuning_values_a_spec_names(capsys):
    """`--copy` specs may end in NAME=VALUE tuning values (`copy_routes.TUNING_NAMES`),
    forced for the copy: `tiles_interleave=1` compiles the interleaved `tiles` box of an
    odd int8 transpose (`cuda.byte_perm`), which the default does not take; an unknown
    name is refused. A `box<rows>` pattern's line names the residues its kernel is keyed by."""
    if not _nvrtc():
        pytest.skip("NVRTC unavailable")
    sys.path.insert(0, str(ROOT / "dev" / "device"))
    try:
        import copy_check
    finally:
        sys.path.remove(str(ROOT / "dev" / "device"))
    spec = "int8:299x333:1x299:+3:tiles_interleave=1:tiles_lanes=8"
    assert copy_check.parse(spec) == ("int8", (299, 333), (1, 299), 3)
    assert copy_check.tuning(spec) == {"tiles_interleave": 1, "tiles_lanes": 8}
    assert copy_check.tuning("int8:299x333:1x299:box_stage=registers") == {"box_stage": "registers"}
    with pytest.raises(SystemExit, match="not NAME=VALUE"):
        copy_check.tuning("int8:299x333:1x299:tiles=1")
    assert copy_check.main([spec, "--compile-only"]) == 0
    assert copy_check.main(["int8:299x333:1x299:+3", "--compile-only"]) == 0
    # box<rows> keyed by its steps' residues (copy_key.ROWS_RESIDUES): the source's 2570 mod 32, dst's W 1530 mod 16
    assert copy_check.main(["int8:4x37x90x17:640x1x2570x37:+3", "--compile-only"]) == 0
    interleaved, plain, rows = capsys.readouterr().out.splitlines()
    assert "box<tiles>" in interleaved and interleaved.endswith("cuda.byte_perm")
    assert "box<tiles>" in plain and "cuda.byte_perm" not in plain and "residues" not in plain
    assert "box<rows>" in rows
    assert rows.endswith("keyed by its residues (source step 10 mod 32, destination run step 10 mod 16)")
