"""The hostile suite's quick mode: every attack of the suite against a real replica holds.

Asserted per attack: the expected answer (the attack refused, bounded or counted as it
should be), the replica's RSS growth under `MAX_RSS_GROWTH_MB`, the replica still up.
The slowest concurrent geocode is printed, not asserted: on a loaded 2-core machine it
is a benchmark figure (the full run's table is the one quoted), not a test's.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from loadtest import hostile


def test_respellings_are_the_same_bytes_in_other_spellings() -> None:
    token = "AbC-_0123456789xyz"  # 18 characters: padding would be added
    spelled = hostile.respellings(token)
    assert token not in spelled and len(set(spelled)) == len(spelled) == 5
    assert "AbC+/0123456789xyz==" in spelled  # the standard alphabet, padded


@pytest.mark.process
def test_every_attack_of_the_quick_run_is_refused_or_bounded_and_the_replica_holds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = asyncio.run(hostile.run_suite(hostile.ATTACKS, quick=True, workdir=tmp_path))
    with capsys.disabled():
        print("\n" + hostile.table(rows))
    assert [row.attack for row in rows] == list(hostile.ATTACKS), "the replica went down"
    for row in rows:
        name = row.attack.name
        assert row.alive, f"{name}: the replica did not answer /health afterwards"
        assert row.rss_growth < hostile.MAX_RSS_GROWTH_MB * hostile.MIB, name
        assert re.search(row.attack.expected, row.answer), f"{name}: {row.answer}"
        assert row.probes > 0, f"{name}: no geocode answered while or after it ran"
