"""The bottom layer every other package may import: user-facing diagnostics
(`TilecError`) and source locations of ops. It imports nothing of tilec."""
