"""The sign-in benchmark's quick mode: it runs every measurement, against a real provider
and two real replicas, and prints each beside its reference from the same run."""

from __future__ import annotations

import asyncio

import pytest

from benchmarks import sign_in

pytestmark = pytest.mark.process


def test_the_sign_in_benchmark_measures_each_cost_beside_sign_in_off() -> None:
    measured = asyncio.run(sign_in.measure(30))
    assert list(measured) == [
        "verify, new token",
        "verify, again",
        "gate",
        "gate, new token",
        "replica",
    ]
    for name, (on, off) in measured.items():
        assert len(on) == 30 and (off == [] if name.startswith("verify") else len(off) == 30)
    printed = sign_in.report(measured)
    for needle in ("sign-in ms", "off ms", "added ms", "p50", "p99", "target"):
        assert needle in printed
