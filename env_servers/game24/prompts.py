"""The Game-of-24 prompt pack, adapted from Tree of Thoughts (MIT licence,
princeton-nlp/tree-of-thought-llm, src/tot/prompts/game24.py): its chain-of-
thought examples for acting and its sure/likely/impossible value examples,
rewritten as correctness scores from 1 to 10.

Acting and value examples are chat turns (the 0.5B model, shown them pasted
into one message, echoed the instructions in 17 of 38 replies:
tests/env/real_outputs): each acting example is a conversation, one step per
model turn and the game's answer as the user's; each value example a user
message with the steps and the one-line evaluation as the answer. Value and
reflect prompts show the trajectory with STEP_TEMPLATE (`Step N:` /
`Observation:` lines, as in the examples; a test replays every example
through the rules to keep them truthful).
"""

from __future__ import annotations

from lats_pb import environment_pb2

from env_servers.game24.actions import PREFIX_PATTERN

INSTRUCTIONS = """\
You are playing the Game of 24. Use the input numbers and basic arithmetic \
(+ - * /) to obtain 24. Each step, choose two of the numbers left, combine them \
with one operation, and write the result and the numbers now left, like \
`4 + 8 = 12 (left: 4 6 12)`. When 24 is the only number left, write the final \
answer as one expression that uses every input number exactly once, like \
`Answer: (6 - 4) * (4 + 8) = 24`."""

STEP_TEMPLATE = "Step {step}: {action}\nObservation: {observation}\n"

EXAMPLES = """\
Input: 4 4 6 8
Steps:
Step 1: 4 + 8 = 12 (left: 4 6 12)
Observation: left: 4 6 12
Step 2: 6 - 4 = 2 (left: 2 12)
Observation: left: 2 12
Step 3: 2 * 12 = 24 (left: 24)
Observation: left: 24 (now give the Answer)
Step 4: Answer: (6 - 4) * (4 + 8) = 24
Observation: Correct: (6 - 4) * (4 + 8) = 24.

Input: 2 9 10 12
Steps:
Step 1: 12 * 2 = 24 (left: 9 10 24)
Observation: left: 9 10 24
Step 2: 10 - 9 = 1 (left: 1 24)
Observation: left: 1 24
Step 3: 24 * 1 = 24 (left: 24)
Observation: left: 24 (now give the Answer)
Step 4: Answer: (12 * 2) * (10 - 9) = 24
Observation: Correct: (12 * 2) * (10 - 9) = 24.

Input: 4 9 10 13
Steps:
Step 1: 13 - 10 = 3 (left: 3 4 9)
Observation: left: 3 4 9
Step 2: 9 - 3 = 6 (left: 4 6)
Observation: left: 4 6
Step 3: 4 * 6 = 24 (left: 24)
Observation: left: 24 (now give the Answer)
Step 4: Answer: 4 * (9 - (13 - 10)) = 24
Observation: Correct: 4 * (9 - (13 - 10)) = 24.

Input: 1 4 8 8
Steps:
Step 1: 8 / 4 = 2 (left: 1 2 8)
Observation: left: 1 2 8
Step 2: 1 + 2 = 3 (left: 3 8)
Observation: left: 3 8
Step 3: 3 * 8 = 24 (left: 24)
Observation: left: 24 (now give the Answer)
Step 4: Answer: (1 + 8 / 4) * 8 = 24
Observation: Correct: (1 + 8 / 4) * 8 = 24.
"""

VALUE_EXAMPLES = """\
Input: 1 2 3 4
Steps:
Step 1: 1 + 2 = 3 (left: 3 3 4)
Observation: left: 3 3 4
Step 2: 3 + 3 = 6 (left: 4 6)
Observation: left: 4 6
Evaluation: Numbers left: 4 6. 4 * 6 = 24. sure. Thus the correctness score is 10

Input: 2 2 4 10
Steps:
Step 1: 2 + 2 = 4 (left: 4 4 10)
Observation: left: 4 4 10
Evaluation: Numbers left: 4 4 10. 4 + 4 + 10 = 18. 4 * 10 - 4 = 36. (10 - 4) * 4 = 6 * 4 = 24. sure. Thus the correctness score is 10

Input: 2 3 5 6
Steps:
Step 1: 2 * 3 = 6 (left: 5 6 6)
Observation: left: 5 6 6
Evaluation: Numbers left: 5 6 6. 5 + 6 + 6 = 17. (6 - 5) * 6 = 6. I cannot obtain 24 yet, but the numbers are in a reasonable range. likely. Thus the correctness score is 5

Input: 1 10 10 10
Steps:
Step 1: 10 + 1 = 11 (left: 10 10 11)
Observation: left: 10 10 11
Evaluation: Numbers left: 10 10 11. 10 + 10 + 11 = 31. (11 - 10) * 10 = 10. 10 10 11 are all too big. impossible. Thus the correctness score is 1

Input: 4 6 10 14
Steps:
Step 1: 4 + 6 = 10 (left: 10 10 14)
Observation: left: 10 10 14
Step 2: 10 + 10 = 20 (left: 14 20)
Observation: left: 14 20
Evaluation: Numbers left: 14 20. 14 + 20 = 34. 20 - 14 = 6. 14 * 20 = 280. 20 / 14 = 10/7. impossible. Thus the correctness score is 1
"""

REFLECT_TEMPLATE = """\
You tried to solve this Game of 24 puzzle and failed.

Input: {task}
Steps:
{trajectory}Outcome: {outcome}

In two or three sentences, say what went wrong and what to do differently next \
time (for example, which two numbers to combine first, or which operation to \
avoid). Write only the reflection."""

REFLECTIONS_HEADER = "Lessons from your earlier attempts at this puzzle:\n"
REFLECTION_TEMPLATE = "{index}. {reflection}\n"
VALUE_PATTERN = r"correctness score is\s*(\d+(?:\.\d+)?)"


def _episodes(text: str) -> list[tuple[str, list[tuple[str, str]], str]]:
    """(input, [(action, observation)], evaluation or "") per example block."""
    episodes = []
    for block in text.strip().split("\n\n"):
        lines = block.splitlines()
        steps, evaluation = [], ""
        for line in lines[2:]:
            if line.startswith("Step "):
                steps.append((line.split(": ", 1)[1], ""))
            elif line.startswith("Observation: "):
                steps[-1] = (steps[-1][0], line.removeprefix("Observation: "))
            elif line.startswith("Evaluation: "):
                evaluation = line.removeprefix("Evaluation: ")
        episodes.append((lines[0].removeprefix("Input: "), steps, evaluation))
    return episodes


def act_turns() -> list[environment_pb2.ChatTurn]:
    """Each acting example as a conversation: the input, then each step as the
    model's turn and what the game answered as the user's (the last, the answer)."""
    turns = []
    for task, steps, _ in _episodes(EXAMPLES):
        turns.append(environment_pb2.ChatTurn(role="user", content=f"Input: {task}"))
        for index, (action, observation) in enumerate(steps):
            turns.append(environment_pb2.ChatTurn(role="assistant", content=action))
            if index < len(steps) - 1:
                turns.append(environment_pb2.ChatTurn(
                    role="user", content=OBSERVATION_TURN.format(observation=observation)))
    return turns


def value_turns() -> list[environment_pb2.ChatTurn]:
    """Each value example: the steps so far, then the one-line evaluation."""
    turns = []
    for task, steps, evaluation in _episodes(VALUE_EXAMPLES):
        shown = "".join(STEP_TEMPLATE.format(step=i, action=a, observation=o)
                        for i, (a, o) in enumerate(steps, start=1))
        turns.append(environment_pb2.ChatTurn(
            role="user", content=VALUE_TEMPLATE.format(task=task, trajectory=shown)))
        turns.append(environment_pb2.ChatTurn(role="assistant", content=evaluation))
    return turns


# As chat turns: the input is the episode's first user message, every step the
# model's own turn (one line) and what the game answered the user's.
ACT_TEMPLATE = "{reflections}Input: {task}"
OBSERVATION_TURN = "Observation: {observation}"
VALUE_REQUEST = (
    "Judge whether the numbers left can still reach 24 with + - * /. Try a few "
    "combinations, say sure, likely or impossible, and end with \"Thus the correctness "
    "score is N\" (10 sure, 5 likely, 1 impossible).")
VALUE_TEMPLATE = "Input: {task}\nSteps:\n{trajectory}" + VALUE_REQUEST


def prompt_pack() -> environment_pb2.PromptPack:
    return environment_pb2.PromptPack(
        instructions=INSTRUCTIONS,
        act_template=ACT_TEMPLATE,
        observation_turn=OBSERVATION_TURN,
        act_turns=act_turns(),
        value_template=VALUE_TEMPLATE,
        value_turns=value_turns(),
        reflect_template=REFLECT_TEMPLATE,
        step_template=STEP_TEMPLATE,
        reflection_template=REFLECTION_TEMPLATE,
        reflections_header=REFLECTIONS_HEADER,
        act_stop=["\n"],
        value_stop=["\n\n", "\nInput:"],
        value_pattern=VALUE_PATTERN,
        value_min=1,
        value_max=10,
        act_max_tokens=48,
        value_max_tokens=160,
        reflect_max_tokens=128,
        action_prefix_pattern=PREFIX_PATTERN,
        search_hints=environment_pb2.SearchHints(
            max_depth=4, n_samples=5, iterations=10, simulate=True
        ),
    )
