"""Settings come from the environment; a value the server cannot use stops it with the
variable's name and what would do."""

from __future__ import annotations

import pytest

from server.config import API_FAMILIES, ConfigError, Settings
from server.tomtom import FAMILIES


def test_fit_order_defaults_to_least_work_and_accepts_arrival() -> None:
    assert Settings.from_env({}).fit_order == "least-work"
    assert Settings.from_env({"FIT_ORDER": "Arrival"}).fit_order == "arrival"


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"FIT_ORDER": "shortest"}, "FIT_ORDER='shortest': use arrival or least-work"),
        ({"FIT_WORKERS": "0"}, "FIT_WORKERS=0: must be at least 1"),
        ({"APP_DATA_BUDGET": "lots"}, "APP_DATA_BUDGET='lots': expected a whole number"),
        ({"LOG_LEVEL": "loud"}, "LOG_LEVEL='LOUD': use DEBUG, INFO, WARNING or ERROR"),
        (
            {"TOMTOM_QPS": "routing=fast"},
            "TOMTOM_QPS: 'routing=fast' is not family=queries-per-second",
        ),
        ({"TOMTOM_QPS": "routing=0"}, "TOMTOM_QPS: routing must have a positive rate, got '0'"),
        ({"DRAIN_DELAY_S": "-1"}, "DRAIN_DELAY_S=-1.0: must be at least 0"),
        (
            {"DRAIN_DELAY_S": "30"},
            "DRAIN_TIMEOUT_S=25 must be longer than DRAIN_DELAY_S=30: calls need time to finish",
        ),
        (
            {"OTEL_TRACES_EXPORTER": "jaeger"},
            "OTEL_TRACES_EXPORTER='jaeger': use console, none, otlp",
        ),
        (
            {"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"},
            "OTEL_EXPORTER_OTLP_PROTOCOL='grpc': this server exports OTLP over http/protobuf only",
        ),
    ],
)
def test_an_unusable_value_names_the_variable_and_what_would_do(
    env: dict[str, str], message: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        Settings.from_env(env)
    assert str(caught.value) == message


def test_tomtom_qps_overrides_named_families_and_rejects_unknown_ones() -> None:
    settings = Settings.from_env({"TOMTOM_QPS": "routing=2.5, Search=5"})
    assert settings.tomtom_qps == (("routing", 2.5), ("search", 5.0))
    with pytest.raises(ConfigError, match="unknown API family 'routes'"):
        Settings.from_env({"TOMTOM_QPS": "routes=5"})


def test_every_api_family_can_be_configured() -> None:
    assert {family.name for family in FAMILIES} == API_FAMILIES


def test_traces_are_off_unless_an_otel_variable_turns_them_on() -> None:
    assert Settings.from_env({}).traces_exporter == "none"
    endpoint = {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}
    assert Settings.from_env(endpoint).traces_exporter == "otlp"
    assert Settings.from_env({"OTEL_TRACES_EXPORTER": "console"}).traces_exporter == "console"
    disabled = {**endpoint, "OTEL_SDK_DISABLED": "true"}
    assert Settings.from_env(disabled).traces_exporter == "none"
