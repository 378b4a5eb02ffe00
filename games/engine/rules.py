"""Rule options of docs/rules.md, one frozen value per match; it validates itself."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from functools import lru_cache
from typing import Any

from .errors import RulesError

_CHOICES: dict[str, tuple[str, ...]] = {
    "opening": ("opener_only", "club_round"),  # R-10..R-12
    "draw_policy": ("free", "one_then_pass", "until_playable"),
    "jack_nomination": ("any_suit", "different_suit"),
    "seven_chain_growth": ("linear", "doubling"),
    "ace_mode": ("follow_up", "extra_turn", "skip_next"),
    "two_player_reverse": ("no_effect", "skip"),
    "stock_exhausted": ("end_immediately", "end_when_draw_needed", "reshuffle"),
    "match_tiebreak": ("shared", "extra_deal"),
}
_BOOLEANS = ("seven_penalty_ends_turn",)
_RANGES: dict[str, tuple[int, int]] = {
    "max_actions": (10, 100_000),  # §9
    "max_players": (2, 7),
    "hand_size": (1, 25),
    "deals_per_match": (1, 52),  # §1
}


@dataclass(frozen=True, slots=True)
class Rules:
    """The rule options of one match; defaults are the project's decisions in docs/rules.md."""

    opening: str = "opener_only"
    draw_policy: str = "free"
    jack_nomination: str = "any_suit"
    seven_chain_growth: str = "linear"
    seven_penalty_ends_turn: bool = True
    ace_mode: str = "follow_up"
    two_player_reverse: str = "no_effect"
    stock_exhausted: str = "end_immediately"
    max_actions: int = 1000
    match_tiebreak: str = "shared"
    max_players: int = 6
    hand_size: int = 7
    deals_per_match: int = 4

    def __post_init__(self) -> None:
        for name, choices in _CHOICES.items():
            value = getattr(self, name)
            if value not in choices:
                raise RulesError(
                    name,
                    value,
                    "rule option %(option)r takes one of %(choices)s, not %(value)r",
                    {"option": name, "choices": ", ".join(choices), "value": value},
                )
        for name in _BOOLEANS:
            value = getattr(self, name)
            if not isinstance(value, bool):
                raise RulesError(
                    name,
                    value,
                    "rule option %(option)r takes true or false, not %(value)r",
                    {"option": name, "value": value},
                )
        for name, (low, high) in _RANGES.items():
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise RulesError(
                    name,
                    value,
                    "rule option %(option)r takes a whole number %(low)d..%(high)d, not %(value)r",
                    {"option": name, "low": low, "high": high, "value": value},
                )
        if self.max_players * self.hand_size > 51:
            raise RulesError(
                "hand_size",
                self.hand_size,
                "%(players)d players × %(cards)d cards leave no stock"
                " (at most 51 cards may be dealt)",
                {"players": self.max_players, "cards": self.hand_size},
            )

    @classmethod
    def from_json(cls, options: Mapping[str, Any] | None) -> Rules:
        """Default rules overridden by `options`; an unknown option is a RulesError naming it.

        A stored state carries its rules, so every move parses one of a few option sets: each
        is validated once and the frozen Rules shared (keyed by option, type and value, so that
        true and 1 stay apart; the least recently used sets are forgotten)."""
        if options is None:
            return cls()
        if not isinstance(options, Mapping):
            raise RulesError("rules", options, "rules must be an object of option: value")
        key = tuple((name, type(value), value) for name, value in options.items())
        try:
            hash(key)
        except TypeError:  # an unhashable value: refused by the validation itself
            return _validated(options)
        return _validated_once(key)

    def to_json(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in _OPTION_NAMES}

    def seven_penalty(self, pending_sevens: int) -> int:
        """R-22: the cards one penalty draw takes for `pending_sevens` (k > 0): 3·k, or
        3·2^(k−1) under seven_chain_growth = doubling."""
        if self.seven_chain_growth == "doubling":
            return 3 << (pending_sevens - 1)
        return 3 * pending_sevens

    @property
    def action_limit(self) -> int | None:
        """§9: the actions after which a deal ends as a stock exhaustion; only reshuffle has one
        (without it every deal ends in a bounded number of actions anyway)."""
        return self.max_actions if self.stock_exhausted == "reshuffle" else None

    @staticmethod
    def option_names() -> tuple[str, ...]:
        return _OPTION_NAMES

    @staticmethod
    def option_choices(name: str) -> tuple[str, ...]:
        """The values a choice option takes, in the order of the table above (else KeyError)."""
        return _CHOICES[name]


_OPTION_NAMES: tuple[str, ...] = tuple(f.name for f in fields(Rules))


def _validated(options: Mapping[str, Any]) -> Rules:
    for name in options:
        if name not in _OPTION_NAMES:
            raise RulesError(
                name, options[name], "unknown rule option %(option)r", {"option": name}
            )
    return Rules(**dict(options))


@lru_cache(maxsize=256)
def _validated_once(key: tuple[tuple[str, type, Any], ...]) -> Rules:
    return _validated({name: value for name, _, value in key})


DEFAULT_RULES = Rules()


def option_specs() -> list[dict[str, Any]]:
    """Every rule option in the order of docs/rules.md's table, for a client to offer them: its
    name, kind, default and values (a choice's values, true and false, or a whole number's
    min..max)."""
    specs: list[dict[str, Any]] = []
    for name in _OPTION_NAMES:
        spec: dict[str, Any] = {"name": name, "default": getattr(DEFAULT_RULES, name)}
        if name in _CHOICES:
            spec.update(type="choice", choices=list(_CHOICES[name]))
        elif name in _BOOLEANS:
            spec.update(type="boolean", choices=[True, False])
        else:
            low, high = _RANGES[name]
            spec.update(type="integer", min=low, max=high)
        specs.append(spec)
    return specs
