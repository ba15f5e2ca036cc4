"""Extracting programs from model replies, fenced or not."""

from __future__ import annotations

import pytest

from env_servers.coderunner.extraction import NoCodeFound, extract_program, strip_demo_code

ADD = "def add(x, y):\n    return x + y\n"


@pytest.mark.parametrize("reply", [
    f"```python\n{ADD}```",
    f"Here is the implementation:\n\n```python\n{ADD}```\n\nIt adds the two numbers.",
    f"```Python3\n{ADD}```",
    f"```\n{ADD}```",
    f"  ```py  \n{ADD}  ```  ",
    ADD,
    f"Sure! Here it is:\n{ADD}\nThis function returns the sum of x and y.\nHope it helps.",
    f"[attempt 2]:\n{ADD}",
])
def test_the_program_is_found_however_the_reply_is_dressed(reply):
    assert extract_program(reply, "add") == ADD


def test_an_unclosed_fence_runs_to_the_end_of_the_reply():
    assert extract_program(f"```python\n{ADD}", "add") == ADD


def test_the_block_defining_the_entry_point_wins():
    reply = ("First a helper test:\n```python\nprint(add(1, 2))\n```\n"
             "```python\ndef helper():\n    return 1\n```\n"
             f"```python\n{ADD}```")
    assert extract_program(reply, "add") == ADD
    assert extract_program(reply, "") == "def helper():\n    return 1\n"


def test_non_python_blocks_are_ignored():
    reply = f"```bash\npython solution.py\n```\n```python\n{ADD}```"
    assert extract_program(reply, "add") == ADD


def test_demo_code_is_dropped_but_definitions_stay():
    reply = ('```python\n"""Module doc."""\nimport math\nfrom typing import List\nLIMIT = 3\n\n'
             f"{ADD}\nprint(add(1, 2))\nassert add(1, 2) == 3\nadd(3, 4)\n"
             'if __name__ == "__main__":\n    print(add(2, 2))\n```')
    assert extract_program(reply, "add") == (
        '"""Module doc."""\nimport math\nfrom typing import List\nLIMIT = 3\n\n' + ADD)


def test_other_top_level_calls_stay():
    program = "import sys\nsys.setrecursionlimit(10000)\nhelper = max\nhelper(1, 2)\n" + ADD
    assert extract_program(f"```python\n{program}add(1, 2)\n```", "add") == program


def test_a_line_shared_with_kept_code_stays():
    assert strip_demo_code("x = 1; print(x)") == "x = 1; print(x)"


def test_code_with_a_syntax_error_is_kept_whole_so_the_error_is_reported():
    broken = "def add(x, y):\n    total = x +\n    return total"
    assert extract_program(broken, "add") == broken + "\n"
    # Indented lines are code, never prose: they are not cut to make the rest parse.
    program = extract_program("def add(x, y):\n    y = 1\n    return y +", "add")
    assert program.endswith("return y +\n")


@pytest.mark.parametrize("reply", ["~ just some text ~", "I cannot do that.", "```python\n```",
                                   "The answer is 42.", "```text\nno code\n```"])
def test_a_reply_without_code_is_refused_with_a_hint(reply):
    with pytest.raises(NoCodeFound, match="full implementation of `add`"):
        extract_program(reply, "add")
