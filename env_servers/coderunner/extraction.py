"""Extracting the program from a model's reply, fenced or not.

`extract_program(reply, entry_point)` returns the Python source to run, or
raises `NoCodeFound` when the reply holds no code at all.

  * Fenced replies (```python ... ``` or bare ```): the block that defines the
    entry point wins, else the first block with a definition, else the first
    block. A fence the model never closed (it hit its token limit) runs to the end.
  * Unfenced replies: from the first line that starts a definition or an
    import; trailing unindented prose is cut off line by line until the code
    parses (indented lines and definitions are never cut).
  * Top-level demo code that a test run must not execute is dropped: an
    `if __name__ == "__main__":` block, bare `assert`s, and calls of `print`
    or of the program's own functions such as `print(f(3))` or `main()`. A
    program that does not parse is returned as it is, so its syntax error
    becomes the feedback.
"""

from __future__ import annotations

import ast
import re

from env_servers.coderunner.pysource import parse, parses

_FENCE = re.compile(r"^[ \t]*```[ \t]*([\w+-]*)[ \t]*$", re.MULTILINE)
_CODE_START = re.compile(r"^(?:async\s+def|def|class|import|from|@)\b", re.MULTILINE)
_PYTHON_TAGS = {"", "python", "python3", "py"}
MAX_TRAILING_PROSE_LINES = 40


class NoCodeFound(ValueError):
    """The reply contains no Python code; the message says what to send instead."""


def extract_program(reply: str, entry_point: str = "") -> str:
    blocks = fenced_blocks(reply)
    if blocks:
        source = _choose_block(blocks, entry_point)
    else:
        source = _unfenced_code(reply)
    source = source.strip("\n")
    if not source.strip():
        raise NoCodeFound(_no_code_message(entry_point))
    return strip_demo_code(source) + "\n"


def fenced_blocks(reply: str) -> list[str]:
    """Contents of the ``` fenced blocks tagged as Python (or untagged), in order."""
    blocks: list[str] = []
    fences = list(_FENCE.finditer(reply))
    index = 0
    while index < len(fences):
        opening = fences[index]
        closing = fences[index + 1] if index + 1 < len(fences) else None
        end = closing.start() if closing else len(reply)
        if opening.group(1).lower() in _PYTHON_TAGS:
            blocks.append(reply[opening.end():end].strip("\n"))
        index += 2
    return [block for block in blocks if block.strip()]


def _choose_block(blocks: list[str], entry_point: str) -> str:
    if entry_point:
        defines = re.compile(rf"^\s*(?:async\s+)?def\s+{re.escape(entry_point)}\s*\(", re.MULTILINE)
        for block in blocks:
            if defines.search(block):
                return block
    for block in blocks:
        if _CODE_START.search(block):
            return block
    return blocks[0]


def _unfenced_code(reply: str) -> str:
    start = _CODE_START.search(reply)
    if not start:
        return ""
    lines = reply[start.start():].rstrip().splitlines()
    for cut in range(min(MAX_TRAILING_PROSE_LINES, len(lines) - 1) + 1):
        removed = lines[len(lines) - cut] if cut else ""
        if removed[:1].isspace() or _CODE_START.match(removed):
            break  # only unindented prose is cut, never code
        candidate = "\n".join(lines[: len(lines) - cut])
        if parses(candidate):
            return candidate
    return "\n".join(lines)


def strip_demo_code(source: str) -> str:
    """`source` without top-level demo code: main guards, bare asserts, and calls
    of `print` or of the program's own functions (`print(f(3))`, `f(3)`, `main()`).
    Other top-level statements (`sys.setrecursionlimit(...)`, docstrings) stay."""
    try:
        module = parse(source)
    except (SyntaxError, ValueError):
        return source
    defined = {node.name for node in module.body
               if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    drop: set[int] = set()
    keep: set[int] = set()
    for node in module.body:
        demo = (_is_main_guard(node) or isinstance(node, ast.Assert)
                or _is_demo_call(node, defined | {"print"}))
        lines = range(node.lineno, (node.end_lineno or node.lineno) + 1)
        (drop if demo else keep).update(lines)
    drop -= keep  # a line shared with kept code (`x = 1; print(x)`) stays
    if not drop:
        return source
    kept = [line for number, line in enumerate(source.splitlines(), start=1) if number not in drop]
    return "\n".join(kept).rstrip("\n")


def _is_demo_call(node: ast.stmt, names: set[str]) -> bool:
    if not isinstance(node, ast.Expr) or not isinstance(node.value, ast.Call):
        return False
    function = node.value.func
    return isinstance(function, ast.Name) and function.id in names


def _is_main_guard(node: ast.stmt) -> bool:
    if not isinstance(node, ast.If) or not isinstance(node.test, ast.Compare):
        return False
    names = [node.test.left, *node.test.comparators]
    return any(isinstance(n, ast.Name) and n.id == "__name__" for n in names)


def _no_code_message(entry_point: str) -> str:
    name = f"`{entry_point}`" if entry_point else "the function"
    return (f"No Python code found in the reply. Reply with the full implementation of {name} "
            "(restate the signature), e.g. in a ```python fenced block.")
