"""Sandbox maintenance: `python -m env_servers.sandbox docker-up | docker-down | check`."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
from pathlib import Path

import click

from env_servers.sandbox.engine import PRIVATE_SOCKET, EngineUnavailable, find_engine, start_private_dockerd


@click.group()
def main() -> None:
    """Set up and check the sandbox backends."""


@main.command("docker-up")
def docker_up() -> None:
    """Start a private dockerd if no engine answers (root), then build/import the image if missing."""
    import docker

    from env_servers.sandbox.image import IMAGE, ensure_image

    url = find_engine()
    if url is None:
        try:
            url = start_private_dockerd().base_url
        except EngineUnavailable as error:
            raise click.ClickException(str(error)) from error
        click.echo(f"started a private dockerd at {url}")
    else:
        click.echo(f"using the Docker engine at {url}")
    client = docker.DockerClient(base_url=url)
    started = time.monotonic()
    image_id = ensure_image(client)
    click.echo(f"image {IMAGE} ready ({image_id[:19]}, {time.monotonic() - started:.1f}s)")
    if url != os.environ.get("DOCKER_HOST"):
        click.echo(f"export DOCKER_HOST={url}")


@main.command("docker-down")
def docker_down() -> None:
    """Stop the private dockerd started by docker-up (if any)."""
    pidfile = Path(PRIVATE_SOCKET).parent / "dockerd.pid"
    if not pidfile.exists():
        click.echo("no private dockerd is running")
        return
    pid = int(pidfile.read_text().strip())
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        click.echo("the private dockerd had already stopped")
        return
    for _ in range(100):
        if not Path(f"/proc/{pid}").exists():
            break
        time.sleep(0.2)
    click.echo(f"stopped the private dockerd (pid {pid})")


@main.command("check")
@click.argument("backends", nargs=-1)
def check(backends: tuple[str, ...]) -> None:
    """Run one small program with two tests on each named backend (default: bwrap docker)."""
    from env_servers.sandbox import RunRequest, SandboxUnavailable, make_sandbox

    async def one(name: str) -> str:
        sandbox = make_sandbox(name, workers=1, allow_insecure=name == "process")
        try:
            result = await sandbox.run(
                RunRequest("def f(x):\n    return x + 1\n", ("assert f(1) == 2", "assert f(1) == 3"))
            )
            return f"{name}: {result.status}, {result.passed}/2 passed, detail {result.tests[1].detail!r}"
        finally:
            await sandbox.aclose()

    failed = False
    for name in backends or ("bwrap", "docker"):
        try:
            click.echo(asyncio.run(one(name)))
        except SandboxUnavailable as error:
            failed = True
            click.echo(f"{name}: unavailable: {error}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
