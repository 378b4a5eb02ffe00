"""Leaderboard partitions: the ruleset key of a rules dict and the calendar periods (UTC).

Periods: `all` (no bounds), `month` (the calendar month: from the 1st at 00:00 UTC to the 1st of
the next month, exclusive) and `week` (the ISO week: Monday 00:00 UTC to the next Monday,
exclusive). A match counts in the periods that contain its `finished_at`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

PERIODS = ("all", "month", "week")
ALL_TIME_START = date(1970, 1, 1)  # period_start of the all-time rows
DEFAULT_RULESET = "default"
NOT_A_RULE = ("deals_per_match",)  # how long a match lasts does not change the game


def rules_for_board(rules: Mapping[str, Any]) -> dict[str, Any]:
    """The match's full rules (defaults filled in) without the options that do not partition."""
    from games.engine import Rules  # the engine is pure Python: the single source of the rules

    full = Rules.from_json({k: v for k, v in rules.items() if k not in NOT_A_RULE}).to_json()
    return {k: v for k, v in full.items() if k not in NOT_A_RULE}


def ruleset_key(rules: Mapping[str, Any]) -> str:
    """ "default" for the default rules, else the first 12 hex digits of the SHA-256 of the
    canonical JSON of `rules_for_board(rules)` (stable across processes and releases)."""
    board_rules = rules_for_board(rules)
    if board_rules == rules_for_board({}):
        return DEFAULT_RULESET
    text = json.dumps(board_rules, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def period_start(kind: str, at: datetime) -> date:
    """First day of the period of kind `kind` that contains `at` (UTC)."""
    day = at.astimezone(UTC).date()
    if kind == "month":
        return day.replace(day=1)
    if kind == "week":
        return day - timedelta(days=day.weekday())
    return ALL_TIME_START


def period_bounds(kind: str, at: datetime) -> tuple[datetime | None, datetime | None]:
    """[start, end) in UTC of the period containing `at`; (None, None) for all time."""
    if kind == "all":
        return None, None
    start = period_start(kind, at)
    if kind == "month":
        end = (start.replace(day=28) + timedelta(days=4)).replace(day=1)
    else:
        end = start + timedelta(days=7)
    return datetime.combine(start, time(), UTC), datetime.combine(end, time(), UTC)
