"""`GET /api/v1/rules`: the rule options a match may set, as the engine defines them, public."""

from __future__ import annotations

import pytest

from games.engine.rules import DEFAULT_RULES, Rules

pytestmark = pytest.mark.django_db


def test_every_option_with_its_default_and_values(api) -> None:
    response = api.get("/api/v1/rules")
    assert response.status_code == 200
    options = response.json()
    assert [o["name"] for o in options] == list(Rules.option_names())
    by_name = {o["name"]: o for o in options}
    for name, option in by_name.items():
        assert option["default"] == getattr(DEFAULT_RULES, name)
    assert by_name["draw_policy"] == {
        "name": "draw_policy",
        "type": "choice",
        "default": "free",
        "choices": ["free", "one_then_pass", "until_playable"],
    }
    assert by_name["seven_penalty_ends_turn"]["type"] == "boolean"
    assert by_name["hand_size"] == {
        "name": "hand_size",
        "type": "integer",
        "default": 7,
        "min": 1,
        "max": 25,
    }


def test_each_listed_value_is_accepted_and_the_bounds_are_the_engines(api) -> None:
    for option in api.get("/api/v1/rules").json():
        name = option["name"]
        if name in ("max_players", "hand_size"):
            continue  # they bound each other (max_players × hand_size ≤ 51)
        for value in option.get("choices", []):
            assert getattr(Rules.from_json({name: value}), name) == value
        if option["type"] == "integer":
            Rules.from_json({name: option["min"]})
            Rules.from_json({name: option["max"]})
            with pytest.raises(Exception, match=name):
                Rules.from_json({name: option["max"] + 1})
