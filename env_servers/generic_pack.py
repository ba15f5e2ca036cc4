"""A prompt pack for environments that bring no prompts of their own.

Environments from other ecosystems (an OpenEnv server, a TextArena game) say
what they are in their own words: a description, the first observation, a few
example actions. `generic_prompt_pack` turns that into a complete pack in the
LATS shape (act, value and reflect templates, a 1-10 value score), so the
planner can search them unchanged. A user who knows the domain better
replaces any part of it with a pack file (`env_servers.pack_file`).
"""

from __future__ import annotations

from collections.abc import Sequence

from lats_pb import environment_pb2

STEP_TEMPLATE = "Step {step}: {action}\nObservation: {observation}\n"
REFLECTION_TEMPLATE = "{index}. {reflection}\n"
REFLECTIONS_HEADER = "Lessons from your earlier attempts at this task:\n"
VALUE_PATTERN = r"score is\s*(\d+(?:\.\d+)?)"
# "Step 3:", "Action:", "Action 3:" at the start of a sampled action.
ACTION_PREFIX_PATTERN = r"(?i)^\s*(?:(?:step|action)\s*\d*\s*[:.)]\s*)+"

ACT_TEMPLATE = """\
{examples}
{reflections}
Now the current task. Reply with step {step} only: ONE action, exactly in the \
format the task asks for. No explanation.

Task:
{task}
{trajectory}Step {step}:"""

VALUE_TEMPLATE = """\
Judge how likely the steps so far lead to success in this task. Think briefly, \
then end with "Thus the score is N", where N is from 1 (hopeless) to 10 (solved \
or certain to be solved).

Task:
{task}
{trajectory}Evaluation:"""

REFLECT_TEMPLATE = """\
You tried this task and did not succeed.

Task:
{task}
{trajectory}Outcome: {outcome}

In two or three sentences, say what went wrong and what to do differently next \
time. Write only the reflection."""


def examples_text(actions: Sequence[str]) -> str:
    """The pack's `examples`: the valid action forms, one per line."""
    if not actions:
        return ""
    lines = "\n".join(f"  {action}" for action in actions)
    return f"Actions look like this (one per step):\n{lines}\n"


def generic_prompt_pack(instructions: str, example_actions: Sequence[str], *,
                        max_depth: int, n_samples: int = 3, iterations: int = 20,
                        act_max_tokens: int = 64) -> environment_pb2.PromptPack:
    """A complete pack from an environment's own description and example actions.

    `instructions` and the examples are the environment's words: they go into
    the pack's plain fields, which the planner substitutes, never formats, so
    braces in them need no escaping.
    """
    return environment_pb2.PromptPack(
        instructions=instructions.strip(),
        examples=examples_text(example_actions),
        act_template=ACT_TEMPLATE,
        value_template=VALUE_TEMPLATE,
        reflect_template=REFLECT_TEMPLATE,
        step_template=STEP_TEMPLATE,
        reflection_template=REFLECTION_TEMPLATE,
        reflections_header=REFLECTIONS_HEADER,
        act_stop=["\n"],
        value_stop=["\n\n"],
        reflect_stop=["\n\n"],
        value_pattern=VALUE_PATTERN,
        value_min=1,
        value_max=10,
        act_max_tokens=act_max_tokens,
        value_max_tokens=160,
        reflect_max_tokens=128,
        action_prefix_pattern=ACTION_PREFIX_PATTERN,
        search_hints=environment_pb2.SearchHints(
            max_depth=max_depth, n_samples=n_samples, iterations=iterations, simulate=True),
    )
