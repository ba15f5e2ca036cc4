"""Parsing actions as a small model writes them, and rejecting malformed ones."""

from __future__ import annotations

import re

import pytest

from env_servers.wiki.actions import Action, ActionError, find_action, parse_action


@pytest.mark.parametrize(("text", "expected"), [
    ("Search[Ed Wood]", Action("search", "Ed Wood")),
    ("search[ed wood]", Action("search", "ed wood")),
    ("Thought 2: I need to look up eastern sector.\nAction 2: Lookup[eastern sector]",
     Action("lookup", "eastern sector")),
    ("**Action 3:** Finish[Richard Nixon]", Action("finish", "Richard Nixon")),
    ("Action: SEARCH [ \"High Plains (United States)\" ]",
     Action("search", "High Plains (United States)")),
    ("Action 1: Finish(yes)", Action("finish", "yes")),
    ("Finish(1,800 to 7,000 ft)", Action("finish", "1,800 to 7,000 ft")),
    ("`Lookup[named after]`", Action("lookup", "named after")),
    # the Action line wins over a bracketed call inside the thought
    ("Thought 1: I could Search[Milhouse] later.\nAction 1: Search[The Simpsons]",
     Action("search", "The Simpsons")),
    # without an Action line the first bracketed call counts
    ("I will check. Search[Milhouse] then Lookup[named after]", Action("search", "Milhouse")),
])
def test_tolerated_spellings(text, expected):
    assert parse_action(text) == expected


@pytest.mark.parametrize(("text", "reason"), [
    ("I think the answer is yes.", "no action found"),
    ("I will search (again) for Milhouse", "no action found"),   # parentheses mid-thought
    ("Action 1: Think[about it]", "no action found"),
    ("Search[]", "Search[] is empty"),
    ("Action 4: Finish[  ]", "Finish[] is empty"),
    ("Lookup[\"\"]", "Lookup[] is empty"),
])
def test_malformed_actions_say_why(text, reason):
    with pytest.raises(ActionError, match=re.escape(reason)):
        parse_action(text)


def test_find_action_reports_no_action_as_none():
    assert find_action("just a thought") is None
    assert str(find_action("finish[yes]")) == "Finish[yes]"
