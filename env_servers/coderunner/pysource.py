"""Parsing untrusted Python source without executing it and without warnings.

`ast.parse` only builds a syntax tree; it runs nothing. It does emit
SyntaxWarning / DeprecationWarning for things like invalid escape sequences
in model-written or dataset code, which are noise here and are silenced.
"""

from __future__ import annotations

import ast
import warnings


def parse(source: str, mode: str = "exec") -> ast.AST:
    """The syntax tree of `source`; SyntaxError / ValueError if it does not parse."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return ast.parse(source, mode=mode)
        except (RecursionError, MemoryError) as error:
            raise SyntaxError(f"too deeply nested to parse ({type(error).__name__})") from None


def parses(source: str, mode: str = "exec") -> bool:
    try:
        parse(source, mode)
    except (SyntaxError, ValueError):
        return False
    return True
