"""`lats deploy ...`: build the images and the secrets a deployment needs.

  lats deploy image [--offline] [--base IMAGE] [--extras local] [--models NAME] [--tag lats:latest]
  lats deploy postgres-image [--tag lats-postgres:15]     Debian's PostgreSQL, no registry
  lats deploy secrets DIR                                 snapshot key, database password

The images are built by the Docker engine at DOCKER_HOST (or the default socket).
"""

from __future__ import annotations

from pathlib import Path

import click


def _client(docker_host: str | None):
    import docker

    try:
        client = docker.DockerClient(base_url=docker_host) if docker_host \
            else docker.from_env()
        client.ping()
        return client
    except Exception as error:
        raise click.ClickException(
            f"no Docker engine answers ({error}); start one or set DOCKER_HOST") from None


_docker_host = click.option("--docker-host", envvar="DOCKER_HOST", default=None,
                            help="Engine to build with (default: DOCKER_HOST or the socket).")
_source = click.option("--source", type=click.Path(file_okay=False, path_type=Path),
                       default=None, help="Source checkout (default: the one around the cwd).")


@click.group("deploy")
def deploy() -> None:
    """Build the images and secrets of a deployment (deploy/ holds the manifests)."""


@deploy.command("image")
@click.option("--offline", is_flag=True,
              help="No registry: a debootstrap base and wheels from this host's pip; the "
                   "build itself has no network.")
@click.option("--base", default=None,
              help="Base image (default: python:3.11-slim-bookworm, or the debootstrap "
                   "base with --offline).")
@click.option("--extras", default="", help="lats-platform extras, e.g. local (embedded model).")
@click.option("--models", "models", multiple=True, metavar="NAME",
              help="Embedded model the image carries for the gateway (repeatable; brings "
                   "the local extra), e.g. qwen2.5-coder-1.5b. Offline it comes from this "
                   "host's model cache (`lats model fetch NAME` once, with a network).")
@click.option("--tag", default="lats:latest", show_default=True)
@_source
@_docker_host
def image(offline: bool, base: str | None, extras: str, models: tuple[str, ...], tag: str,
          source: Path | None, docker_host: str | None) -> None:
    """Build the one image every service runs (deploy/Dockerfile); with --models, the
    gateway's image (compose: --tag lats-gateway:latest)."""
    from lats.deploy_artifacts.images import ImageBuildError, build_service_image, source_root
    from env_servers.sandbox.rootfs import RootfsUnavailable
    from lats.deploy_artifacts.wheels import WheelhouseError

    from llm_gateway.model_store import ModelStoreError, get_spec

    names = [name for given in models for name in given.replace(",", " ").split()]
    try:
        for name in names:
            get_spec(name)
    except ModelStoreError as error:
        raise click.BadParameter(str(error), param_hint="--models") from None
    client = _client(docker_host)
    try:
        built = build_service_image(client, source_root(source), offline=offline, tag=tag,
                                    base=base, extras=extras, models=names,
                                    log=lambda line: click.echo(line, err=True))
    except (ImageBuildError, RootfsUnavailable, WheelhouseError, FileNotFoundError) as error:
        raise click.ClickException(str(error)) from None
    click.echo(f"built {built.tag} ({built.image_id[:19]}) on {built.base} "
               f"in {built.seconds:.0f}s")


@deploy.command("postgres-image")
@click.option("--tag", default="lats-postgres:15", show_default=True)
@_source
@_docker_host
def postgres_image(tag: str, source: Path | None, docker_host: str | None) -> None:
    """Build Debian's PostgreSQL 15 as an image (for machines without a registry)."""
    from lats.deploy_artifacts.images import ImageBuildError, build_postgres_image, source_root
    from env_servers.sandbox.rootfs import RootfsUnavailable

    client = _client(docker_host)
    try:
        built = build_postgres_image(client, source_root(source), tag=tag,
                                     log=lambda line: click.echo(line, err=True))
    except (ImageBuildError, RootfsUnavailable, FileNotFoundError) as error:
        raise click.ClickException(str(error)) from None
    click.echo(f"built {built.tag} ({built.image_id[:19]}) in {built.seconds:.0f}s")


@deploy.command("secrets")
@click.argument("folder", type=click.Path(file_okay=False, path_type=Path))
def secrets(folder: Path) -> None:
    """Create the deployment's shared secrets in FOLDER (existing ones are kept)."""
    from lats.deploy_artifacts.secrets import init_secrets

    for name, created in init_secrets(folder).items():
        click.echo(f"{folder / name}: {'created' if created else 'kept'}")
