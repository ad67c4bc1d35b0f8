"""Per-user budgets of TomTom requests, for hosted deployments with sign-in
(docs/sign-in.md, Per-user budgets).

- `_windows.py`: `Window`, the fixed windows (minute, day, UTC) budgets are counted in;
- `_counters.py`: the counts, in memory or in Redis (`QUOTA_STORE`), each take atomic;
- `_budgets.py`: `Budgets.spend(user)`, called before each request a signed-in user
  causes, and what happens while Redis fails.
"""

from __future__ import annotations

from tomtom_mcp_apps.server.config import Settings
from tomtom_mcp_apps.server.quotas._budgets import Budgets
from tomtom_mcp_apps.server.quotas._counters import RedisCounts
from tomtom_mcp_apps.server.quotas._windows import Window, windows

__all__ = ["Budgets", "Window", "build_budgets"]


def build_budgets(settings: Settings) -> Budgets | None:
    """The replica's budgets, or None when no `USER_QUOTA_*` is set."""
    if not settings.user_quotas:
        return None
    store = None
    if settings.quota_store is not None:
        store = RedisCounts(settings.quota_store, settings.quota_store_timeout_s)
    return Budgets(
        windows(settings.user_quota_per_min, settings.user_quota_per_day),
        store=store,
        store_timeout_s=settings.quota_store_timeout_s,
        refuse_when_down=settings.quota_store_down == "refuse",
    )
