"""The Kubernetes manifests operators copy: valid offline, and shaped as documented."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

from tomtom_mcp_apps.server.config import Settings

K8S = Path(__file__).resolve().parents[2] / "deploy" / "k8s"
KUBERNETES_VERSION = "1.30.0"


def _documents(folder: Path = K8S) -> list[tuple[str, dict[str, Any]]]:
    docs = []
    for path in sorted(folder.glob("*.yaml")):
        docs += [(path.name, d) for d in yaml.safe_load_all(path.read_text()) if d]
    return docs


def _kind(kind: str) -> dict[str, Any]:
    (doc,) = [d for _, d in _documents() if d["kind"] == kind]
    return doc


@pytest.mark.parametrize(
    ("name", "doc"),
    _documents() + _documents(K8S / "redis"),
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_every_manifest_validates_strictly_against_the_kubernetes_schema(
    name: str, doc: dict[str, Any]
) -> None:
    kubernetes_validate.validate(doc, KUBERNETES_VERSION, strict=True)


def test_a_misspelled_field_fails_strict_validation() -> None:
    deployment = _kind("Deployment")
    broken = {**deployment, "spec": {**deployment["spec"], "replica": 2}}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(broken, KUBERNETES_VERSION, strict=True)


def test_the_deployment_runs_two_replicas_probed_on_health_with_memory_requests() -> None:
    deployment = _kind("Deployment")
    assert deployment["spec"]["replicas"] == 2
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    for probe in ("readinessProbe", "livenessProbe", "startupProbe"):
        assert container[probe]["httpGet"]["path"] == "/health", probe
    requests = container["resources"]["requests"]
    assert requests["memory"].endswith("Mi") and requests["cpu"]
    assert container["resources"]["limits"]["memory"]
    assert deployment["spec"]["template"]["spec"]["securityContext"]["runAsNonRoot"] is True


def test_the_service_and_autoscaler_point_at_the_deployment() -> None:
    deployment, service = _kind("Deployment"), _kind("Service")
    hpa = _kind("HorizontalPodAutoscaler")
    pod_labels = deployment["spec"]["template"]["metadata"]["labels"]
    assert service["spec"]["selector"].items() <= pod_labels.items()
    assert "sessionAffinity" not in service["spec"] or service["spec"]["sessionAffinity"] == "None"
    assert hpa["spec"]["scaleTargetRef"]["name"] == deployment["metadata"]["name"]
    assert hpa["spec"]["minReplicas"] == deployment["spec"]["replicas"]


def test_the_tile_secret_comes_from_a_secret_and_the_public_url_is_set() -> None:
    (container,) = _kind("Deployment")["spec"]["template"]["spec"]["containers"]
    env = {e["name"]: e for e in container["env"]}
    assert env["TILE_TOKEN_SECRET"]["valueFrom"]["secretKeyRef"]["name"] == "tomtom-mcp-apps-tiles"
    assert env["PUBLIC_URL"]["value"].endswith("/mcp")
    assert "mcp.example.com" in env["ALLOWED_HOSTS"]["value"]


def test_the_pod_is_given_time_to_pause_then_drain_before_it_is_killed() -> None:
    spec = _kind("Deployment")["spec"]["template"]["spec"]
    (container,) = spec["containers"]
    pause = int(container["lifecycle"]["preStop"]["exec"]["command"][-1])
    env = {e["name"]: e.get("value") for e in container["env"]}
    drain = float(env["DRAIN_TIMEOUT_S"])
    assert float(env["DRAIN_DELAY_S"]) < drain == Settings().drain_timeout_s
    assert spec["terminationGracePeriodSeconds"] >= pause + drain + 5
    readiness = container["readinessProbe"]
    assert readiness["httpGet"]["path"] == "/health"  # 503 from the first second of the drain


def test_sign_in_and_budgets_are_variables_of_the_deployment_off_by_default() -> None:
    (container,) = _kind("Deployment")["spec"]["template"]["spec"]["containers"]
    env = {e["name"]: e.get("value") for e in container["env"]}
    variables = {
        field.validation_alias
        for field in Settings.model_fields.values()
        if isinstance(field.validation_alias, str)
    }
    assert set(env) <= variables, set(env) - variables
    given = {name: value for name, value in env.items() if value is not None}
    sign_in = ("OAUTH_ISSUER", "OAUTH_AUDIENCE", "OAUTH_SCOPES", "QUOTA_STORE")
    assert {name: given[name] for name in sign_in} == dict.fromkeys(sign_in, "")
    assert (given["USER_QUOTA_PER_MIN"], given["USER_QUOTA_PER_DAY"]) == ("", "")
    assert given["OPEN_KEY"] == "accept", "pods bind 0.0.0.0: the example says it means it"
    settings = Settings.from_env({**given, "TILE_TOKEN_SECRET": "s" * 40})
    assert not settings.sign_in and not settings.user_quotas
    signed_in = {**given, "OAUTH_ISSUER": "https://kc.example.com/realms/maps"}
    with_sign_in = Settings.from_env({**signed_in, "TILE_TOKEN_SECRET": "s" * 40})
    assert (with_sign_in.minute_budget, with_sign_in.day_budget) == (300, 5000)


def test_the_optional_redis_is_apart_from_the_server_and_named_in_the_deployment() -> None:
    redis = {d["kind"]: d for _, d in _documents(K8S / "redis")}
    assert set(redis) == {"Deployment", "Service"}
    service, deployment = redis["Service"], redis["Deployment"]
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    assert service["spec"]["selector"].items() <= labels.items()
    assert labels["app.kubernetes.io/component"] == "budgets"
    server = _kind("Service")["spec"]["selector"]
    assert not server.items() <= labels.items(), "the server's Service never selects Redis"
    text = (K8S / "deployment.yaml").read_text()
    assert f"redis://{service['metadata']['name']}:6379/0" in text
