"""`lats conformance ADDR`: run the conformance kit against a live server."""

from __future__ import annotations

import sys

import click


def pytest_arguments(address: str, task_id: str = "", timeout: float = 10.0,
                     extra: tuple[str, ...] = (), second_address: str = "") -> list[str]:
    """The pytest command line that runs the kit against `address`."""
    arguments = ["-p", "lats.conformance.plugin", "-p", "no:cacheprovider",
                 "--pyargs", "lats.conformance", "--env-addr", address,
                 "--env-timeout", str(timeout)]
    if task_id:
        arguments += ["--env-task-id", task_id]
    if second_address:
        arguments += ["--env-addr-2", second_address]
    return [*arguments, *extra]


@click.command(context_settings={"ignore_unknown_options": True})
@click.argument("address", metavar="HOST:PORT")
@click.option("--task-id", default="", help="Task to play (default: first of the default split).")
@click.option("--timeout", default=10.0, show_default=True, help="Seconds per call.")
@click.option("--replica", "second_address", default="", metavar="HOST:PORT",
              help="A second replica sharing the snapshot key: check both answer identically.")
@click.argument("pytest_args", nargs=-1, type=click.UNPROCESSED)
def conformance(address: str, task_id: str, timeout: float, second_address: str,
                pytest_args: tuple[str, ...]) -> None:
    """Check the environment server at HOST:PORT against environment.proto.

    Extra arguments go to pytest (e.g. -x, -k snapshot). Exits non-zero on failure.
    """
    import pytest

    sys.exit(int(pytest.main(pytest_arguments(address, task_id, timeout, pytest_args,
                                                 second_address))))
