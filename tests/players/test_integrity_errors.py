"""Only the races a service knows become domain answers: a registration that loses the race
for its username is 400 `invalid`; any other integrity error propagates (a logged 500), never
an answer that would hide it."""

from __future__ import annotations

import pytest
from django.db import IntegrityError

from pisyedili_api.errors import ApplicationError
from players.models import ApiToken
from players.services import accounts

pytestmark = pytest.mark.django_db


def test_a_registration_that_loses_the_race_for_its_name_is_400(make_player, monkeypatch):
    make_player("Rita")
    # The name is taken by the time the rows are written: the check before them saw it free.
    monkeypatch.setattr(accounts, "username_check", lambda username: None)
    with pytest.raises(ApplicationError) as raised:
        accounts.player_register(username="rita", password="a long passphrase 1")
    assert raised.value.code == "invalid"
    assert raised.value.detail == {"username": [accounts._USERNAME_TAKEN]}


def test_any_other_integrity_error_of_a_registration_propagates(make_player, monkeypatch):
    existing, _ = make_player()
    taken = ApiToken.objects.filter(user_id=existing.user_id).values_list("digest", flat=True)[0]

    def token_with_a_taken_digest(*, user_id: int, device: str = "") -> str:
        ApiToken.objects.create(digest=taken, user_id=user_id)  # the primary key is taken
        return "key"

    monkeypatch.setattr(accounts, "api_token_create", token_with_a_taken_digest)
    with pytest.raises(IntegrityError):
        accounts.player_register(username="Sami", password="a long passphrase 1")
    assert not accounts.Player.objects.filter(username="Sami").exists()
