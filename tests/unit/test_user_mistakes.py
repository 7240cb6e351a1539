"""Python-API mistakes that used to pass silently are located errors: a repeated
argument name in `tilec.Program`, compiling a program with no function, and
`Program.load` of a layout encoding that does not parse (issue 32)."""

from __future__ import annotations

import inspect

import pytest

import tilec
from tilec.support.diagnostics import TilecError


def test_a_repeated_argument_name_is_refused_at_the_users_line():
    p = tilec.Program("f")
    p.pointer("x")
    with pytest.raises(TilecError) as e:
        line = inspect.currentframe().f_lineno + 1
        p.pointer("x", "f16")
    assert str(e.value).startswith(f"{__file__}:{line}:")
    assert "argument name 'x' is taken" in str(e.value)


def test_compiling_a_program_with_no_function_is_an_error():
    with pytest.raises(TilecError, match=r"nothing to compile: the program has no function"):
        tilec.compile("builtin.module {}")




def _view(p):
    return p.view(p.pointer("x"), "(32,32):(32,1)")


@pytest.mark.parametrize("encoding", ["#layout.blocked<{sizePerThread = [1, 4]", ("blocked", 4), "not a layout"])
def test_load_with_a_bad_encoding_is_a_located_tilec_error(encoding):
    p = tilec.Program("f")
    v = _view(p)
    with pytest.raises(TilecError) as e:
        line = inspect.currentframe().f_lineno + 1
        p.load(v, encoding)
    text = str(e.value)
    assert text.startswith(f"{__file__}:{line}:")
    assert "isspace" not in text and "ParseError" not in text
    assert "encoding" in text


@pytest.mark.parametrize("text", [("func.func",), None, b"builtin.module {}"])
def test_parse_of_something_not_text_is_an_error(text):
    with pytest.raises(TilecError, match=r"tilec.parse takes IR text \(a str\), not "):
        tilec.parse(text)
