"""`user_location()`: `file:line:col` of the innermost frame outside tilec, the column
read from the caller's code positions once a code object (`_columns`), not once an op:
a large caller (matmul_bench's `main`, 3470 instructions) made every built op list them."""

from __future__ import annotations

import sys

from tilec.compiler.builder_locations import _columns, user_location


def test_the_line_and_column_of_the_call():
    line = sys._getframe().f_lineno
    first = user_location()
    second = [0,
              user_location()][1]
    assert first == f"{__file__}:{line + 1}:13"
    assert second == f"{__file__}:{line + 3}:15"


def test_a_large_caller_s_column():
    body = "".join(f"    x{i} = [{i}, {i} + 1]\n" for i in range(400))
    source = f"def big(where):\n{body}    return [0,\n      where()][1]\n"
    namespace: dict = {}
    exec(compile(source, "<big>", "exec"), namespace)
    assert namespace["big"](user_location) == "<big>:403:7"


def test_the_positions_are_read_once_a_code_object():
    def caller():
        return [user_location() for _ in range(50)]

    before = _columns.cache_info()
    got = caller()
    after = _columns.cache_info()
    assert len(set(got)) == 1
    assert after.misses - before.misses == 1 and after.hits - before.hits == 49
