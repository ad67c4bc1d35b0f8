"""The Kubernetes manifests operators copy: valid offline, and shaped as documented."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

from server.config import Settings

K8S = Path(__file__).resolve().parents[2] / "deploy" / "k8s"
KUBERNETES_VERSION = "1.30.0"


def _documents() -> list[tuple[str, dict[str, Any]]]:
    docs = []
    for path in sorted(K8S.glob("*.yaml")):
        docs += [(path.name, d) for d in yaml.safe_load_all(path.read_text()) if d]
    return docs


def _kind(kind: str) -> dict[str, Any]:
    (doc,) = [d for _, d in _documents() if d["kind"] == kind]
    return doc


@pytest.mark.parametrize(
    ("name", "doc"), _documents(), ids=lambda v: v if isinstance(v, str) else ""
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
