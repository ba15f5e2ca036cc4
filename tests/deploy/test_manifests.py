"""deploy/: the compose file and the Kubernetes manifests cover every service and validate."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from env_servers.registry import BUILTIN_DOMAINS
from lats_runtime.processes import READINESS
from tests.deploy.compose import ROOT, resolved_config

K8S = ROOT / "deploy" / "k8s"
SERVED = sorted(set(BUILTIN_DOMAINS) - {"hotpotqa-cot"})  # cot shares hotpotqa's corpus
MANIFESTS = sorted(K8S.rglob("*.yaml"))


def _documents() -> list[dict]:
    return [doc for path in MANIFESTS for doc in yaml.safe_load_all(path.read_text()) if doc]


def _by_kind(kind: str) -> dict[str, dict]:
    return {doc["metadata"]["name"]: doc for doc in _documents() if doc["kind"] == kind}


def test_the_manifests_validate_strictly_against_the_kubernetes_schemas():
    run = subprocess.run([sys.executable, "-m", "kubernetes_validate", "--strict", "--quiet",
                          "-k", "1.33.0", *map(str, MANIFESTS)],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr


def test_compose_config_is_valid_and_covers_every_service():
    services = resolved_config()["services"]
    for name in SERVED:
        assert services[name]["deploy"]["replicas"] == 2, name
        assert "healthcheck" in services[name], name
        assert "--snapshot-key" not in services[name]["command"], "no key on a command line"
        assert services[name]["environment"]["LATS_SNAPSHOT_KEY_FILE"]
    assert services["planner"]["deploy"]["replicas"] == 2
    assert {"gateway", "postgres", "secrets", "planner"} <= set(services)
    for name, service in services.items():
        for port in service.get("ports", []):
            assert not port.get("published"), f"{name} fixes host port {port}"


def test_every_service_up_starts_has_a_health_check():
    """`up --wait` waits for health: a service without a check would be "running" at once."""
    services = resolved_config()["services"]
    started = {name for name, service in services.items()
               if not service.get("profiles") and name != "secrets"}
    assert "ui" in started and "gateway" in started
    for name in started:
        assert services[name].get("healthcheck", {}).get("test"), name
    assert services["ui"]["healthcheck"]["test"][-2:] == ["--http", "127.0.0.1:8080"]


def test_compose_runs_every_lats_service_unprivileged_and_read_only():
    services = resolved_config()["services"]
    for name, service in services.items():
        if name == "postgres":
            continue
        assert service["read_only"] and service["cap_drop"] == ["ALL"], name
        assert "no-new-privileges:true" in service["security_opt"], name
    coderunner = services["coderunner"]["security_opt"]
    assert "systempaths=unconfined" in coderunner
    assert "seccomp=seccomp/coderunner.json" in coderunner


def test_one_variable_points_the_gateway_at_an_openai_compatible_server():
    env = resolved_config({"OPENAI_BASE_URL": "http://gpu:8000/v1"})["services"]["gateway"]
    assert env["environment"]["OPENAI_BASE_URL"] == "http://gpu:8000/v1"
    assert env["environment"]["LATS_GATEWAY_BACKEND"] in ("", None)  # the gateway infers openai


def test_every_environment_and_the_planners_have_probes_limits_pdb_and_hpa():
    deployments = _by_kind("Deployment")
    services = _by_kind("Service")
    budgets, scalers = _by_kind("PodDisruptionBudget"), _by_kind("HorizontalPodAutoscaler")
    for name in [f"env-{domain}" for domain in SERVED] + ["planner"]:
        assert name in budgets and name in scalers, name
        assert services[name]["spec"]["clusterIP"] == "None", f"{name} is not headless"
    for name, deployment in deployments.items():
        pod = deployment["spec"]["template"]["spec"]
        assert pod["securityContext"]["runAsNonRoot"] is True, name
        for container in pod["containers"]:
            assert container["readinessProbe"]["grpc"] and container["livenessProbe"]["grpc"]
            assert {"requests", "limits"} <= set(container["resources"]), name
            context = container["securityContext"]
            assert context["allowPrivilegeEscalation"] is False, name
            assert context["readOnlyRootFilesystem"] is True, name
            assert context["capabilities"]["drop"] == ["ALL"], name


def _readiness_of(name: str) -> str:
    """The health service name of a deployment's (or compose service's) readiness."""
    kind = "planner" if name == "planner" else "gateway" if "gateway" in name else "env"
    return READINESS[kind]


def test_readiness_probes_ask_the_service_and_liveness_probes_the_server():
    for name, deployment in _by_kind("Deployment").items():
        container = deployment["spec"]["template"]["spec"]["containers"][0]
        if "grpc" not in container["readinessProbe"]:
            continue                                    # postgres
        assert container["readinessProbe"]["grpc"].get("service") == _readiness_of(name), name
        assert "service" not in container["livenessProbe"]["grpc"], name   # "": alive


def test_compose_health_checks_ask_readiness_and_the_planner_waits_for_its_gateway():
    services = resolved_config()["services"]
    for name in [*SERVED, "gateway", "planner"]:
        test = services[name]["healthcheck"]["test"]
        assert test[test.index("--service") + 1] == _readiness_of(name), name
    assert services["planner"]["depends_on"]["gateway"]["condition"] == "service_healthy"


def test_no_secret_value_is_committed():
    assert "Secret" not in {doc["kind"] for doc in _documents()}
    text = "\n".join(p.read_text() for p in [*MANIFESTS, ROOT / "deploy" / "compose.yaml"])
    assert not re.search(r"[0-9a-f]{32,}", text), "a key-like literal is committed"


def test_the_seccomp_profile_the_nodes_get_is_the_one_compose_uses():
    config_map = _by_kind("ConfigMap")["lats-seccomp-profiles"]
    installed = json.loads(config_map["data"]["lats-coderunner.json"])
    assert installed == json.loads((ROOT / "deploy" / "seccomp" / "coderunner.json").read_text())
    pod = _by_kind("Deployment")["env-coderunner"]["spec"]["template"]["spec"]
    assert pod["securityContext"]["seccompProfile"]["localhostProfile"] == \
        "profiles/lats-coderunner.json"
    assert pod["hostUsers"] is False
    assert pod["containers"][0]["securityContext"]["procMount"] == "Unmasked"


@pytest.mark.parametrize("name", SERVED)
def test_every_domain_is_deployed_with_its_snapshot_key_from_the_secret(name):
    container = _by_kind("Deployment")[f"env-{name}"]["spec"]["template"]["spec"]["containers"][0]
    assert container["args"][:3] == ["serve", "env", name]
    assert "--snapshot-key-file" in container["args"]


def test_the_dockerignore_keeps_the_context_to_what_the_image_copies():
    ignore = (ROOT / ".dockerignore").read_text().split("\n")
    assert ignore[ignore.index("*") if "*" in ignore else -1] == "*", "allowlist expected"
    for copied in ("lats_data", "env_servers", "deploy/wheelhouse", "deploy/Dockerfile"):
        assert f"!{copied}" in ignore, copied
    assert Path(ROOT / "deploy" / "wheelhouse" / "README.md").is_file()
