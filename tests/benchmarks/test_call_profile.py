"""The per-call profile: each named cost of a call timed in the checkout's own process."""

from __future__ import annotations

import pytest

from benchmarks import call_profile

pytestmark = pytest.mark.process


def test_the_profile_names_each_cost_of_a_geocode_and_a_short_route(
    capsys: pytest.CaptureFixture[str],
) -> None:
    call_profile.main(["--calls", "3", "--no-releases"])
    printed = capsys.readouterr().out
    assert "geocode: CPU ms per call" in printed and "route: CPU ms per call" in printed
    rows = {
        line.rsplit(None, 1)[0].strip(): line.rsplit(None, 1)[1]
        for line in printed.splitlines()
        if line.strip() and line.rsplit(None, 1)[-1].replace(".", "", 1).isdigit()
    }
    for label, _ in call_profile.COSTS:  # every cost found on this checkout
        assert label.strip() in rows
    assert float(rows["answer checks of the routes"]) > 0
    assert float(rows["whole call, in process (the client too)"]) > 0
