"""Reading actions out of a model-written trajectory (the CoT transcript)."""

from env_servers.game24.actions import PREFIX_PATTERN
from env_servers.game24.prompts import STEP_TEMPLATE

from planner.transcript import split_transcript

GAME24 = (" 6 * 5 = 30 (left: 4 10 30)\nObservation: left: 4 10 30\n"
          "Step 2: 30 - 10 = 20 (left: 4 20)\nObservation: left: 4 20\n"
          "Step 3: 20 + 4 = 24 (left: 24)\nObservation: left: 24 (now give the Answer)\n"
          "Step 4: Answer: 6 * 5 - 10 + 4 = 24\nObservation: Correct\n\n"
          "Input: 1 2 3 4\nSteps:\nStep 1: 1 + 2 = 3 (left: 3 3 4)\n")


def test_game24_transcript_gives_its_four_actions_and_ignores_what_follows():
    assert split_transcript(GAME24, STEP_TEMPLATE, 1, ["\n"], PREFIX_PATTERN) == [
        "6 * 5 = 30 (left: 4 10 30)", "30 - 10 = 20 (left: 4 20)",
        "20 + 4 = 24 (left: 24)", "Answer: 6 * 5 - 10 + 4 = 24"]


def test_the_limit_and_the_first_step_number_are_respected():
    assert split_transcript(GAME24, STEP_TEMPLATE, 1, ["\n"], PREFIX_PATTERN, limit=2) == [
        "6 * 5 = 30 (left: 4 10 30)", "30 - 10 = 20 (left: 4 20)"]
    # Continuing from step 3, "Step 4:" is the next header to look for.
    text = " 20 + 4 = 24 (left: 24)\nObservation: left: 24\nStep 4: Answer: 4 * 6 = 24"
    assert split_transcript(text, STEP_TEMPLATE, 3, ["\n"]) == [
        "20 + 4 = 24 (left: 24)", "Answer: 4 * 6 = 24"]


def test_an_action_ends_at_the_template_text_after_it_without_stop_sequences():
    template = "Action {step}: {action} => {observation};\n"
    text = "search[x] => found x;\nAction 2: finish[x] => done;\n"
    assert split_transcript(text, template) == ["search[x]", "finish[x]"]


def test_a_template_without_headers_is_followed_through_its_observations():
    text = "a\nobs of a\nb\nobs of b\nc"
    assert split_transcript(text, "") == ["a", "b", "c"]


def test_one_step_answer_formats_give_one_action():
    program = "def f(x):\n    return x + 1\n"
    assert split_transcript(program, "{action}\n# result: {observation}\n", 1, ["\n```"]) == [
        "def f(x):\n    return x + 1"]


def test_nothing_to_read_gives_no_action():
    assert split_transcript("   \n", STEP_TEMPLATE, 1, ["\n"]) == []


def test_leading_blank_lines_before_an_action_are_skipped():
    assert split_transcript("\n\n 4 + 5 = 9 (left: 6 9 10)\nObservation: x", STEP_TEMPLATE, 1,
                            ["\n"]) == ["4 + 5 = 9 (left: 6 9 10)"]
