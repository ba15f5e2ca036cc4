"""What `lats deploy image` sends to the engine: the build context (the client
package, a model file from the host's cache, readable by the services' user,
the same project wheel for the same source), and what it says when an offline
build lacks the model."""

from __future__ import annotations

import hashlib
import tarfile

import pytest
from click.testing import CliRunner

from lats.cli import main
from lats.deploy_artifacts import images, wheels
from llm_gateway import model_store
from tests.deploy.compose import ROOT


def test_the_context_carries_the_client_and_the_model_files(tmp_path):
    model = tmp_path / "tiny-model.gguf"
    model.write_bytes(b"GGUF" + bytes(1000))
    model.chmod(0o600)
    with images.build_context(ROOT, None, [model]) as context:
        with tarfile.open(fileobj=context) as tar:
            names = tar.getnames()
            member = tar.getmember("deploy/models/tiny-model.gguf")
            assert tar.extractfile(member).read() == model.read_bytes()
    assert member.mode == 0o644 and member.uid == 0
    assert "lats_client/__init__.py" in names and "deploy/models/README.md" in names
    assert "lats_openenv/client.py" in names       # `serve openenv` serves its models
    assert "deploy/Dockerfile" in names and not any(".gguf" in n for n in names
                                                    if n != member.name)


def test_an_offline_build_without_the_model_says_how_to_get_it(monkeypatch):
    def missing(name, *args, **kwargs):
        raise model_store.ModelPartsMissingError(f"model {name!r} is not installed; run "
                                                 f"`lats model fetch {name}`")

    monkeypatch.setattr(model_store, "ensure_model", missing)
    with pytest.raises(images.ImageBuildError) as refused:
        images.host_model_files(["qwen2.5-coder-0.5b"], required=True)
    assert "from this host's model cache" in str(refused.value)
    assert "lats model fetch qwen2.5-coder-0.5b" in str(refused.value)
    assert images.host_model_files(["qwen2.5-coder-0.5b"], required=False) == []


def test_models_bring_the_local_extra_and_unknown_ones_are_refused():
    assert images.with_local_extra("") == "local"
    assert images.with_local_extra("plot") == "plot,local"
    assert images.with_local_extra("local,plot") == "local,plot"
    result = CliRunner().invoke(main, ["deploy", "image", "--offline", "--models", "nope"])
    assert result.exit_code == 2 and "unknown embedded model 'nope'" in result.output


def test_the_same_source_gives_the_same_project_wheel(tmp_path):
    """So an unchanged tree rebuilds its image from cache, layer for layer."""
    digests = []
    for attempt in ("first", "second"):
        wheel = wheels.build_project_wheel(ROOT, tmp_path / attempt)
        digests.append(hashlib.sha256(wheel.read_bytes()).hexdigest())
    assert digests[0] == digests[1]
