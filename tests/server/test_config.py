"""Settings come from the environment; a value the server cannot use stops it with the
variable's name and what would do."""

from __future__ import annotations

import pytest

from server.config import ConfigError, Settings


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
    ],
)
def test_an_unusable_value_names_the_variable_and_what_would_do(
    env: dict[str, str], message: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        Settings.from_env(env)
    assert str(caught.value) == message
