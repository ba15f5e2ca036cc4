"""TaskRef.with_option: the planner's setup option fits the server's limits.max_option_bytes."""

from planner.environment import TaskRef


def _size(task: TaskRef) -> int:
    return sum(len(k.encode()) + len(v.encode()) for k, v in task.options)


def test_an_option_is_cut_on_a_character_boundary_so_all_options_fit():
    task = TaskRef("t", options=(("mode", "x"),))
    fitted = task.with_option("internal_tests", "é" * 100, max_option_bytes=40)
    assert _size(fitted) <= 40
    value = dict(fitted.options)["internal_tests"]
    assert value == "é" * len(value) and len(value) == (40 - 5 - 14) // 2  # whole characters only
    assert dict(fitted.options)["mode"] == "x"


def test_without_a_limit_or_within_it_the_value_is_kept_whole():
    task = TaskRef("t")
    assert dict(task.with_option("k", "v" * 500).options)["k"] == "v" * 500
    assert dict(task.with_option("k", "v" * 5, max_option_bytes=100).options)["k"] == "v" * 5
    again = task.with_option("k", "a").with_option("k", "b", max_option_bytes=10)
    assert again.options == (("k", "b"),)
