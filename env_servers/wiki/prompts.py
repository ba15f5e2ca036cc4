"""The prompt packs: ReAct acting (`hotpotqa`) and chain of thought (`hotpotqa-cot`).

ReAct: ONE planner step is one Thought + Action pair, the model's own turn
in a chat (react_turns: ReAct's examples as conversations, short value
verdicts, two-sentence reflections):

    Thought 3: <reasoning>
    Action 3: Search[...] | Lookup[...] | Finish[...]

and the environment's answer comes back as the user's turn "Observation 3:
...", exactly ReAct's layout. Value and reflection prompts show the
trajectory as text in that layout and end with the request; the value's
score line ("Thus the correctness score is N") is the LATS paper's.
Chain of thought: the LATS paper's prompts, in one user message.
"""

from __future__ import annotations

from lats_pb import environment_pb2

from env_servers.wiki.cot_examples import COT_EXAMPLES, COT_VALUE_EXAMPLES
from env_servers.wiki.react_turns import (REFLECT_REQUEST, VALUE_REQUEST, act_turns,
                                          reflect_turns, value_turns)

ACTION_SPACE = """\
(1) Search[entity], which searches the exact entity on Wikipedia and returns the first paragraph if it exists. If not, it will return some similar entities to search.
(2) Lookup[keyword], which returns the next sentence containing keyword in the current passage.
(3) Finish[answer], which returns the answer and finishes the task."""

REACT_INSTRUCTIONS = f"""\
Solve a question answering task with interleaving Thought, Action, Observation \
steps. Thought can reason about the current situation, and Action can be three types:
{ACTION_SPACE}"""

REACT_STEP_TEMPLATE = "{action}\nObservation {step}: {observation}\n"

REFLECTIONS_HEADER = """\
You have attempted to answer the following question before and failed. The \
following reflection(s) give a plan to avoid failing to answer the question in \
the same way you did previously. Use them to improve your strategy of correctly \
answering the given question.
"""
REFLECTION_TEMPLATE = "Reflection {index}: {reflection}\n"
VALUE_PATTERN = r"correctness score is\s*(\d+(?:\.\d+)?)"

COT_INSTRUCTIONS = """\
Solve a question answering task by having a Thought, then Finish with your \
answer. Thought can reason about the current situation. Finish[answer] returns \
the answer and finishes the task. There is no Wikipedia here: reason from what \
you know."""

COT_ACT_TEMPLATE = """\
Here are some examples:
{examples}(END OF EXAMPLES)
{reflections}
Question: {task}
{trajectory}
Reply as in the examples: one line "Thought: Let's think step by step. ..." with \
your reasoning, then one line "Action: Finish[...]" with the answer."""

COT_STEP_TEMPLATE = "{action}\n"

COT_VALUE_TEMPLATE = """\
Analyze the reasoning of a solution to a question answering task: thoughts that \
reason about the question and a final Finish[answer]. Given a question and the \
reasoning, evaluate its correctness and provide your reasoning and analysis. \
Then at the last line conclude "Thus the correctness score is {{s}}", where s is \
an integer from 1 to 10.

{examples}
{reflections}
Question: {task}
{trajectory}
Evaluate this reasoning. End with the line "Thus the correctness score is N" (N from 1 to 10)."""

COT_REFLECT_TEMPLATE = """\
You are an advanced reasoning agent that can improve based on self refection. \
You will be given a previous reasoning trial in which you were given a question \
to answer. You were unsuccessful in answering the question either because you \
guessed the wrong answer with Finish[<answer>] or there is a phrasing \
discrepancy with your provided answer and the answer key. In a few sentences, \
Diagnose a possible reason for failure or phrasing discrepancy and devise a new, \
concise, high level plan that aims to mitigate the same failure. Use complete \
sentences.

Previous trial:
Question: {task}
{trajectory}
Reflection:"""


# The ReAct pack as chat turns (react_turns): the episode's first user message is
# the question (after any reflections); every step is the model's own turn and
# every observation the user's, as in the few-shot conversations before it.
TURN_ACT_TEMPLATE = "{reflections}Question: {task}"
TURN_OBSERVATION = "Observation {step}: {observation}"
TURN_VALUE_TEMPLATE = "Question: {task}\n{trajectory}" + VALUE_REQUEST.replace(
    "{", "{{").replace("}", "}}")
TURN_REFLECT_TEMPLATE = "Question: {task}\n{trajectory}" + REFLECT_REQUEST
TURN_REFLECTIONS_HEADER = (
    "Notes from your earlier trials at this question (use them; do not repeat what "
    "failed):\n")


def react_prompt_pack(action_pattern: str) -> environment_pb2.PromptPack:
    """The ReAct pack of `hotpotqa` (paper defaults: n=5, k=50, depth 7), its examples
    as chat turns (react_turns), one Thought + Action per turn."""
    return environment_pb2.PromptPack(
        instructions=REACT_INSTRUCTIONS,
        act_template=TURN_ACT_TEMPLATE,
        observation_turn=TURN_OBSERVATION,
        act_turns=act_turns(),
        value_template=TURN_VALUE_TEMPLATE,
        value_turns=value_turns(),
        reflect_template=TURN_REFLECT_TEMPLATE,
        reflect_turns=reflect_turns(),
        step_template=REACT_STEP_TEMPLATE,
        reflection_template=REFLECTION_TEMPLATE,
        reflections_header=TURN_REFLECTIONS_HEADER,
        act_stop=["\nObservation", "\nQuestion:"],
        value_stop=["\n\n", "\nQuestion:"],
        reflect_stop=["\n\n", "\nQuestion:"],
        value_pattern=VALUE_PATTERN,
        value_min=1,
        value_max=10,
        act_max_tokens=192,
        value_max_tokens=96,
        reflect_max_tokens=96,
        # Chosen on the development slice (dev questions 0-9, 1.5B, honest; bench/README):
        # the model's 1-10 value added nothing there (lats 4/10 at 12.0 calls with it,
        # 4/10 at 4.7 without), so lats goes by self-consistency and stops once three
        # samples agree on an answer. The paper's search keeps its value (lats_paper).
        search_hints=environment_pb2.SearchHints(
            max_depth=7, n_samples=5, iterations=50, simulate=True, stop_class_size=3,
            value_weight=0.0),
        paper_search_hints=environment_pb2.SearchHints(
            max_depth=7, n_samples=5, iterations=50, simulate=True),
    )


def cot_prompt_pack() -> environment_pb2.PromptPack:
    """The chain-of-thought pack of `hotpotqa-cot`: one step is normally a whole
    reasoning chain ending in Finish[answer]; a step without Finish is a partial
    thought the next step continues."""
    return environment_pb2.PromptPack(
        instructions=COT_INSTRUCTIONS,
        examples=COT_EXAMPLES,
        act_template=COT_ACT_TEMPLATE,
        value_template=COT_VALUE_TEMPLATE,
        reflect_template=COT_REFLECT_TEMPLATE,
        step_template=COT_STEP_TEMPLATE,
        reflection_template=REFLECTION_TEMPLATE,
        reflections_header=REFLECTIONS_HEADER,
        value_examples=COT_VALUE_EXAMPLES,
        act_stop=["\nQuestion:"],
        value_stop=["\nQuestion:"],
        value_pattern=VALUE_PATTERN,
        value_min=1,
        value_max=10,
        act_max_tokens=256,
        value_max_tokens=128,
        reflect_max_tokens=128,
        search_hints=environment_pb2.SearchHints(
            max_depth=3, n_samples=5, iterations=10, simulate=True),
    )
