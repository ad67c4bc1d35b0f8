"""The short-calls benchmark: its quick mode runs every case on real processes and prints
its figures and targets; a server's CPU counts its children's."""

from __future__ import annotations

import selectors
import subprocess
import sys

import pytest

from benchmarks import short_calls

BURN_S = 0.2
BURN = (
    "import sys, time\n"
    f"while time.process_time() < {BURN_S}: pass\n"
    "print('burnt', flush=True)\n"
    "sys.stdin.read()\n"
)
PARENT = (
    "import subprocess, sys\n"
    f"subprocess.Popen([sys.executable, '-c', {BURN!r}])\n"
    "sys.stdin.read()\n"
)


@pytest.mark.process
def test_a_process_cpu_counts_what_its_descendants_spent() -> None:
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    try:
        with selectors.DefaultSelector() as waiting:
            assert parent.stdout is not None
            waiting.register(parent.stdout, selectors.EVENT_READ)
            assert waiting.select(timeout=60), "the grandchild did not burn its CPU in time"
        assert parent.stdout.readline() == b"burnt\n"
        assert short_calls.tree_cpu_s(parent.pid) >= BURN_S
    finally:
        parent.communicate(timeout=60)  # closes stdin: both exit


def test_the_floor_is_called_in_turn_with_the_geocodes_it_is_the_floor_of() -> None:
    # Called back to back alone, the bare tool would run with its code still in the caches
    # while each geocode ran after another server's (docs/testing.md, Benchmarks).
    bare = short_calls.Server("bare SDK tool", {"tool": "http://bare/mcp"})
    ours, theirs = (
        short_calls.Server(
            label, {"geocode": f"http://{label}/g", "short route": f"http://{label}/r"}
        )
        for label in ("this checkout", "b087c95")
    )
    servers = [bare, ours, theirs]
    assert short_calls.rotations(servers, 0) == [
        [(bare, "tool"), (ours, "geocode"), (theirs, "geocode")],
        [(ours, "short route"), (theirs, "short route")],
    ]
    assert short_calls.rotations(servers, 1)[0] == [
        (ours, "geocode"),
        (theirs, "geocode"),
        (bare, "tool"),
    ]


@pytest.mark.process
def test_the_quick_run_measures_every_case_and_prints_the_targets(
    capsys: pytest.CaptureFixture[str],
) -> None:
    short_calls.main(["--quick", "--no-releases"])
    printed = capsys.readouterr().out
    for needle in ("bare SDK tool", "geocode", "short route", "4,342 pts", "CPU ms", "p99 ms"):
        assert needle in printed
    assert "geocode: this checkout / bare SDK tool" in printed
    assert "answer checks / route job" in printed
    assert "targets met:" in printed
