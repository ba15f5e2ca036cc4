"""Reading the actions out of a trajectory the model wrote in one go.

The act prompt ends where the next step's action begins (e.g. "...Step 1:").
Asked for more than one action, a model continues the trajectory in the
pack's `step_template` format: the action, then its own guess of the
observation, then the next step's header, and so on. `split_transcript`
recovers the actions:

  * an action ends at the earliest of the pack's act stop sequences and the
    template text that follows {action} (e.g. "\\nObservation: ");
  * the next action starts after the next step's header, the template text
    before {action} rendered with the next step number (e.g. "Step 2:"); a
    template without such a header ("{action}\\n{observation}\\n") is followed
    through its text after {action} instead;
  * parsing stops when no further action can be found, or at `limit` actions.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from planner.prompting import clean_action

DEFAULT_STEP_TEMPLATE = "{action}\n{observation}\n"
_PLACEHOLDER = re.compile(r"\{(\w+)\}")


def _literal(template: str) -> str:
    return template.replace("{{", "{").replace("}}", "}")


def _header(head: str, step: int) -> str:
    """The step header for `step`, without surrounding whitespace."""
    return _literal(head.replace("{step}", str(step))).strip()


def _tail_pattern(tail: str) -> re.Pattern:
    """Matches the template text after {action}; placeholders match lazily."""
    parts = _PLACEHOLDER.split(tail)
    regex = "".join(re.escape(_literal(p)) if i % 2 == 0 else ".*?" for i, p in enumerate(parts))
    return re.compile(regex, re.DOTALL)


def split_transcript(text: str, step_template: str = "", first_step: int = 1,
                     stops: Sequence[str] = (), prefix_pattern: str = "",
                     limit: int = 100) -> list[str]:
    """The actions of `text`, a model-written continuation of a trajectory."""
    template = step_template or DEFAULT_STEP_TEMPLATE
    if "{action}" not in template:
        template = DEFAULT_STEP_TEMPLATE
    head, tail = template.split("{action}", 1)
    after_action = _literal(_PLACEHOLDER.split(tail)[0])
    delimiters = [s for s in (*stops, after_action) if s]
    tail_pattern = _tail_pattern(tail)
    actions: list[str] = []
    rest = text
    step = first_step
    while rest.strip() and len(actions) < limit:
        rest = rest.lstrip()
        ends = [i for i in (rest.find(d) for d in delimiters) if i >= 0]
        end = min(ends) if ends else len(rest)
        action = clean_action(rest[:end], prefix_pattern)
        if not action:
            break
        actions.append(action)
        rest = rest[end:]
        header = _header(head, step + 1)
        if header:
            at = rest.find(header)
            if at < 0:
                break
            rest = rest[at + len(header):]
        else:
            match = tail_pattern.match(rest)
            if match is None or match.end() == 0:
                break
            rest = rest[match.end():]
        step += 1
    return actions
