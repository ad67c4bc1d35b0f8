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
