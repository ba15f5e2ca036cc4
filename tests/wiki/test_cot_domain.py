"""The chain-of-thought variant: reasoning steps, Finish ends, no Wikipedia."""

from __future__ import annotations

from env_servers.wiki.domain import HotpotQACoTDomain


def test_a_reasoning_chain_ending_in_finish_is_one_terminal_step(make_domain):
    domain = make_domain(HotpotQACoTDomain, reward_mode="oracle")
    state = domain.reset("hotpotqa/0", 0, {}).state
    outcome = domain.step(state, "Thought: Let's think step by step. Scott Derrickson is "
                                 "American. Ed Wood was American.\nAction: Finish[Yes]")
    assert outcome.terminated and outcome.reward == 1.0
    assert outcome.observation == "Episode finished, reward = 1"
    assert domain.score(outcome.state).metrics["em"] == 1.0


def test_a_thought_without_finish_continues(make_domain):
    domain = make_domain(HotpotQACoTDomain)
    state = domain.reset("hotpotqa/0", 0, {}).state
    thought = domain.step(state, "Thought: Scott Derrickson is an American director.")
    assert not thought.terminated and not thought.invalid_action
    assert "Finish[answer]" in thought.observation
    done = domain.step(thought.state, "So they share it.\nAction: Finish[no]")
    assert done.terminated and done.reward == 0.0 and done.observation == "Episode finished."
    assert domain.score(done.state).success is False


def test_tools_are_not_available_and_empty_answers_are_invalid(make_domain):
    domain = make_domain(HotpotQACoTDomain)
    state = domain.reset("hotpotqa/0", 0, {}).state
    search = domain.step(state, "Action: Search[Ed Wood]")
    assert search.invalid_action and "not available" in search.observation
    empty = domain.step(state, "Thought: hmm.\nAction: Finish[]")
    assert empty.invalid_action and not empty.terminated


def test_describe_is_the_cot_pack(make_domain):
    description = make_domain(HotpotQACoTDomain).describe()
    assert HotpotQACoTDomain.name == "hotpotqa-cot"
    assert "Let's think step by step" in description.prompt_pack.examples
    assert description.prompt_pack.step_template == "{action}\n"
    assert description.reward_mode == "honest"
