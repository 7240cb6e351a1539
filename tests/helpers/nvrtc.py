"""Compile emitted CUDA for sm_90 with NVRTC in a test, or skip the test where this
environment has no NVRTC (the package or its library missing)."""

import pytest


def compile_sm90_or_skip(text: str):
    """The NVRTC `CompileResult` of `text` for sm_90 (sm_90a where it uses warpgroup
    MMA, as the launcher compiles it); skips the calling test when NVRTC
    is unavailable. Compile errors still fail the test."""
    try:
        from tilec.runtime.nvrtc import compile_cuda, needs_arch_specific

        return compile_cuda(text, arch="sm_90a" if needs_arch_specific(text) else "sm_90")
    except (ImportError, OSError) as e:
        pytest.skip(f"NVRTC unavailable: {e}")


def sm90_usage_or_skip(text: str):
    """The `KernelResources` (registers, spills, ...) of the one kernel in `text` as
    NVRTC compiles it for sm_90 (`compile_sm90_or_skip`; skips likewise)."""
    from tilec.runtime.nvrtc import resource_usage

    (usage,) = resource_usage(compile_sm90_or_skip(text)).values()
    return usage
