"""The soak's quick mode runs end to end; its memory figures are computed as it says."""

from __future__ import annotations

import pytest

from loadtest import soak


def test_memory_is_judged_after_warm_up_from_the_runs_first_and_last_tenths() -> None:
    samples = [(float(t), 100 + (900 if t < 10 else 0) + t) for t in range(100)]
    memory = soak.memory("replica-1", samples, started=0.0, ended=100.0)
    assert memory.start == pytest.approx(100 + 14.5)  # t 10-19: warm-up's spike left out
    assert memory.end == pytest.approx(100 + 94.5)  # t 90-99
    assert memory.peak == 199
    assert memory.growth == pytest.approx(194.5 / 114.5 - 1)


@pytest.mark.process
def test_the_quick_soak_replays_across_two_replicas_and_reports_memory_and_misses(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert soak.main(["--quick"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[-1].startswith("misses: 0/")
    replicas = [line for line in lines if line.startswith("replica-")]
    assert len(replicas) == 2
    for line in replicas:
        start, peak, end = (int(v) for v in line.split()[1:4])
        assert 0 < start <= peak and end <= peak
    assert "memory not judged (quick run" in out
