"""The WebShop pack's few-shot examples as chat turns, for models that follow turns.

Acting: the paper's deodorant trajectory (prompts.EXAMPLES) as a conversation:
the shop's first page as the user's message, every action as the assistant's
and every page it leads to as the user's, so a small chat model answers a page
with one action per turn. Value: one-line verdicts on partial and finished
trials (a purchase over budget, a purchase that matches, a useful search, a
loop of invalid clicks), so the score line comes within a few tokens, and a
finished trial is judged by what was bought against the instruction (in
honest mode nothing else tells). Reflection: the paper's two failed trials,
each diagnosed in two sentences that say what to search or check instead.
"""

from __future__ import annotations

import re

from lats_pb import environment_pb2

from env_servers.webshop import prompts

_ACTION = re.compile(r"^Action: (.*)$")


def trial_turns(trial: str) -> list[tuple[str, str]]:
    """A trial in the paper's layout (the first page, then "Action: ..." lines each
    followed by "Observation: ..." and the page) as user/assistant turns."""
    blocks = trial.strip().split("\n\n")
    turns: list[tuple[str, str]] = [("user", blocks[0])]
    for block in blocks[1:]:
        head, _, rest = block.partition("\n")
        match = _ACTION.match(head)
        if match is None:
            raise ValueError(f"not an action block: {head!r}")
        turns.append(("assistant", match.group(1)))
        if rest:
            observation = rest.removeprefix("Observation:").strip("\n ")
            turns.append(("user", observation))
    return turns


def act_turns() -> list[environment_pb2.ChatTurn]:
    return [environment_pb2.ChatTurn(role=role, content=content)
            for role, content in trial_turns(prompts.EXAMPLES)]


VALUE_REQUEST = (
    'Judge the latest step: will this trial buy an item that matches every requirement of '
    'the instruction (type, attributes, options, price)? Reply with one sentence, then "Thus '
    'the correctness score is N" (N from 1 to 10: 1 wrong or stuck, 10 the matching item is '
    'bought with the right options).')

_RESULTS = prompts.DEODORANT_RESULTS
_START = prompts.DEODORANT_TASK
_VALUE_CASES = [
    (f"""{_START}

Action: search[3 ounce bright citrus deodorant sensitive skin]
Observation:
{_RESULTS}""",
     "The search returns bright citrus deodorants for sensitive skin under $50, a good "
     "start. Thus the correctness score is 8"),
    (f"""{_START}

Action: search[3 ounce bright citrus deodorant sensitive skin]
Observation:
{_RESULTS}

Action: click[B08KBVJ4XN]
Observation:
[Back to Search]
[< Prev]
Barrel and Oak - Aluminum-Free Deodorant, Deodorant for Men, Essential Oil-Based Scent, 24-Hour Odor Protection, Cedar & Patchouli Blend, Gentle on Sensitive Skin (Mountain Sage, 2.7 oz, 2-Pack)
Price: $15.95
Rating: N.A.
[Description]
[Features]
[Reviews]
[Buy Now]""",
     "This item is a 2.7 oz cedar and patchouli deodorant, not a 3 ounce bright citrus one. "
     "Thus the correctness score is 2"),
    (f"""{_START}

Action: search[3 ounce bright citrus deodorant sensitive skin]
Observation:
{_RESULTS}

Action: click[B078GWRC1J]
Observation:
{prompts.DEODORANT_ITEM}

Action: click[bright citrus]
Observation: You have clicked bright citrus.

Action: click[3 ounce (pack of 1)]
Observation: You have clicked 3 ounce (pack of 1).

Action: click[Buy Now]
Observation: Thank you for shopping with us! You bought [B078GWRC1J] Bright Citrus Deodorant by Earth Mama | Natural and Safe for Sensitive Skin, Pregnancy and Breastfeeding, Contains Organic Calendula 3-Ounce (scent: bright citrus, size: 3 ounce (pack of 1)) for $10.99. The episode is over.""",
     "It bought a bright citrus deodorant for sensitive skin in 3 ounce for $10.99, with "
     "both options chosen. Thus the correctness score is 10"),
    (f"""{_START}

Action: search[3 ounce bright citrus deodorant sensitive skin]
Observation:
{_RESULTS}

Action: click[Bright Citrus Deodorant]
Observation: Invalid action! there is no [Bright Citrus Deodorant] on this page; you can click [Back to Search], [Next >], [B078GWRC1J], [B078GTKVXY], [B08KBVJ4XN].

Action: click[Bright Citrus Deodorant]
Observation: Invalid action! there is no [Bright Citrus Deodorant] on this page; you can click [Back to Search], [Next >], [B078GWRC1J], [B078GTKVXY], [B08KBVJ4XN].""",
     "It repeats a click on a title instead of the product id [B078GWRC1J]. Thus the "
     "correctness score is 2"),
]

REFLECT_REQUEST = (
    "This trial did not buy an item known to match. In one or two sentences, say what went "
    "wrong in it and what to do instead next time: the query to search, or what to check "
    "before [Buy Now].")

_REFLECT_CASES = [
    (prompts.CHIPS_TRIAL.strip() + "\nObservation: The episode is over.",
     "I bought chips that cost $100, far over the $30 budget, without checking the price. "
     "Next time I will search[variety pack of chips] and only open items under $30."),
    (prompts.BACON_TRIAL.strip(),
     "My search found no vegetarian bacon and I wandered between pages clicking buttons that "
     "did not exist. Next time I will search[vegetarian bacon] and check gluten free and 4 "
     "ounce (pack of 2) on the item page."),
]


def value_turns() -> list[environment_pb2.ChatTurn]:
    return [turn for case, verdict in _VALUE_CASES for turn in (
        environment_pb2.ChatTurn(role="user", content=f"{case}\n\n{VALUE_REQUEST}"),
        environment_pb2.ChatTurn(role="assistant", content=verdict))]


def reflect_turns() -> list[environment_pb2.ChatTurn]:
    return [turn for case, reflection in _REFLECT_CASES for turn in (
        environment_pb2.ChatTurn(role="user", content=f"{case}\n\n{REFLECT_REQUEST}"),
        environment_pb2.ChatTurn(role="assistant", content=reflection))]
