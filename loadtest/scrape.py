"""What the replicas' `/metrics` say the widgets reported, to check against the replay."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

import httpx
from prometheus_client.parser import text_string_to_metric_families

WIDGET_STATUS = "tomtom_mcp_widget_status"


def widget_reports(base_urls: Iterable[str], timeout: float = 10.0) -> Counter[str]:
    """Widget status reports by status ("ok", "error"), summed over the replicas."""
    totals: Counter[str] = Counter()
    for base in base_urls:
        response = httpx.get(f"{base.rstrip('/')}/metrics", timeout=timeout)
        response.raise_for_status()
        for family in text_string_to_metric_families(response.text):
            if family.name != WIDGET_STATUS:
                continue
            for sample in family.samples:
                if sample.name == f"{WIDGET_STATUS}_total":
                    totals[sample.labels["status"]] += int(sample.value)
    return totals


def histogram_buckets(base_url: str, name: str, timeout: float = 10.0) -> dict[float, float]:
    """The cumulative bucket counts of histogram `name` on one replica, by upper bound."""
    response = httpx.get(f"{base_url.rstrip('/')}/metrics", timeout=timeout)
    response.raise_for_status()
    for family in text_string_to_metric_families(response.text):
        if family.name == name:
            return {
                float(sample.labels["le"]): sample.value
                for sample in family.samples
                if sample.name == f"{name}_bucket"
            }
    raise KeyError(f"{base_url}/metrics has no histogram {name}")


def late_shares(before: dict[float, float], after: dict[float, float]) -> tuple[int, dict]:
    """Observations between two scrapes, and the share (%) above each bucket bound."""
    counts = {bound: after[bound] - before.get(bound, 0.0) for bound in after}
    total = counts[float("inf")]
    shares = {
        bound: 100.0 * (total - count) / total if total else 0.0
        for bound, count in counts.items()
        if bound != float("inf")
    }
    return int(total), shares
