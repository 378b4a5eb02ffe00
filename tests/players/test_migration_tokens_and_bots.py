"""Migration 0005 on a database of before it: DRF's plain-key tokens carried over as digests
(the keys keep working, the plain keys are gone), bot rows given their ordinal from their name,
and a person holding a bot-like name left a person."""

from __future__ import annotations

import pytest

BEFORE = [("players", "0004_board_periods"), ("authtoken", "0004_alter_tokenproxy_options")]
AFTER = [("players", "0005_accounts_hardening")]


@pytest.mark.django_db(transaction=True)
def test_tokens_become_digests_and_bots_get_their_ordinals(api, migrations):
    old = migrations.to(BEFORE)
    User, Token = old.get_model("auth", "User"), old.get_model("authtoken", "Token")
    Player = old.get_model("players", "Player")
    user = User.objects.create(username="yara", password="!")
    Player.objects.create(user=user, username="yara", display_name="Yara")
    key = "0123456789abcdef0123456789abcdef01234567"
    Token.objects.create(key=key, user=user)
    Player.objects.create(username="bot-greedy-3", display_name="g", is_bot=True, strategy="greedy")
    Player.objects.create(username="bot-random-1", display_name="a person", is_bot=False)

    migrations.to(AFTER)
    # Then every later migration too (what the API below reads, and the rest of the suite).
    migrations.to_the_end()

    from rest_framework.authtoken.models import Token as DrfToken

    from players.models import ApiToken
    from players.models import Player as NewPlayer
    from players.services import bot_player_get_or_create

    assert not DrfToken.objects.exists()
    assert not ApiToken.objects.filter(digest=key).exists()
    me = api.get("/api/v1/players/me", HTTP_AUTHORIZATION=f"Token {key}")
    assert me.status_code == 200 and me.json()["username"] == "yara"
    bot = NewPlayer.objects.get(username="bot-greedy-3")
    assert bot.bot_ordinal == 3 and bot_player_get_or_create(strategy="greedy", ordinal=3) == bot
    person = NewPlayer.objects.get(username="bot-random-1")
    assert not person.is_bot and person.bot_ordinal is None
    assert bot_player_get_or_create(strategy="random", ordinal=1) != person


@pytest.mark.django_db(transaction=True)
def test_usernames_differing_only_in_case_are_told_apart(api, migrations):
    old = migrations.to(BEFORE)
    User, Player = old.get_model("auth", "User"), old.get_model("players", "Player")
    for name in ("Ana", "ana", "ANA", "ana-2"):
        user = User.objects.create(username=name, password="!")
        Player.objects.create(user=user, username=name, display_name=name)

    migrations.to(AFTER)
    # Then every later migration too (the model read below, and the rest of the suite).
    migrations.to_the_end()

    from players.models import Player as NewPlayer

    names = list(NewPlayer.objects.order_by("created_at", "id").values_list("username", flat=True))
    assert names == ["Ana", "ana-3", "ANA-4", "ana-2"]  # the earliest keeps its name
    assert len({name.lower() for name in names}) == 4
    for player in NewPlayer.objects.select_related("user"):
        assert player.user.username == player.username  # the login follows
