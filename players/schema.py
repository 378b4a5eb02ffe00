"""What the served schema says of the player routes (docs/api.md): for each operation, named by
its operation id, one `extend_schema` with its id, summary, description and examples. The
views (players/apis.py) stack it over what the operation takes and gives (their serializers,
parameters and error codes)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema

auth_register = extend_schema(
    operation_id="auth_register",
    summary="Register a player",
    description=(
        "Public, throttled. A new player and its API token (shown once: only its SHA-256 "
        "digest is kept). Passwords go through Django's validators; names like `bot…` are "
        "reserved for the server's bots."
    ),
)


auth_token = extend_schema(
    operation_id="auth_token",
    summary="Log in: a new token",
    description=(
        "Public, throttled per client and per username. A new token for a username and "
        "password; LOGIN_FAILURE_LIMIT failed logins lock the username for "
        "LOGIN_LOCKOUT_SECONDS (`429 throttled`, `Retry-After`)."
    ),
)


auth_token_rotate = extend_schema(
    operation_id="auth_token_rotate",
    summary="Rotate the caller's token",
    description=(
        "A new token replaces the one that made the call; the old key stops working at once. "
        "The player's other tokens stay."
    ),
)


auth_logout = extend_schema(
    operation_id="auth_logout",
    summary="Log out: revoke the caller's token",
    description="The token that made the call stops working; the player's other tokens stay.",
)


players_me = extend_schema(
    operation_id="players_me",
    summary="Get the caller's player",
    description="The caller's player: rating and stats.",
)


players_me_update = extend_schema(
    operation_id="players_me_update",
    summary="Change the caller's display name",
    description=(
        "Throttled per user. The caller's new `display_name` (the rules of registration's): "
        "every match, leaderboard and tournament shows it from then on."
    ),
)


players_detail = extend_schema(
    operation_id="players_detail",
    summary="Get a player",
    description="Public. A player's global openskill rating and counters.",
)


bots_list = extend_schema(
    operation_id="bots_list",
    summary="List the bot strategies",
    description=(
        "Public. Every strategy name that `bots` and `fill_bots` take, with a description;"
        " the levels players choose from (random, beginner, casual, strong, expert, weakest"
        " first, each measured against the one below in paired deals) with their rating measured by"
        " self-play (bench/bots.py --levels) and the command that measured it. `greedy` plays"
        " the level casual."
    ),
)


leaderboard = extend_schema(
    operation_id="leaderboard",
    summary="Get a leaderboard page",
    description=(
        "Public (`around=me` needs a token). One board (table size and ruleset) in one period,"
        " ranked by `metric`, ties sharing a rank; keyset pages by signed cursors."
    ),
)


leaderboards_list = extend_schema(
    operation_id="leaderboards_list",
    summary="List the leaderboards",
    description=(
        "Public. Every board (table size and ruleset) with its rules, its player count and the"
        " bounds of the current periods."
    ),
)


players_history = extend_schema(
    operation_id="players_history",
    summary="Get a player's rating history",
    description=(
        "Public. The player's ratings after each settled match, newest first; keyset pages by "
        "signed cursors."
    ),
)


players_search = extend_schema(
    operation_id="players_search",
    summary="Search players by name",
    description=(
        "Public, throttled per user (per client when anonymous). The people (never a bot) whose "
        "username or display name starts with `search` (2..150 characters), letter case and "
        "accents ignored; cursor pages ordered by username. Public fields only."
    ),
)


auth_password = extend_schema(
    operation_id="auth_password",
    summary="Change the password",
    description=(
        "Throttled per user. A new password, given the current one: every other token of the "
        "player is revoked at once (their streams, sockets and tickets end), the token that made "
        "the call stays. The new password goes through the validators first (`detail."
        "new_password`); a wrong `old_password` counts as a failed login "
        "(LOGIN_FAILURE_LIMIT, then `429 throttled`)."
    ),
)


auth_tokens_list = extend_schema(
    operation_id="auth_tokens_list",
    summary="List the caller's tokens",
    description=(
        "Throttled per user. Every token of the player that still authenticates (one per login "
        "or registration), the most recently used first: its id, when it was made and last "
        "used, and whether it made this call. Never a key or a digest."
    ),
)


auth_tokens_revoke = extend_schema(
    operation_id="auth_tokens_revoke",
    summary="Revoke one of the caller's tokens",
    description=(
        "Throttled per user. The token stops working at once, on every route, with its streams, "
        "sockets and tickets. The caller's own token too, if named (as logout). Another "
        "player's token, or none, is `404`."
    ),
)


auth_tokens_revoke_others = extend_schema(
    operation_id="auth_tokens_revoke_others",
    summary="Revoke every token of the caller's but its own",
    description=(
        'Throttled per user. "Sign out everywhere else": each other token of the player stops '
        "working at once, with its streams, sockets and tickets; the caller's stays. Answers how "
        "many were revoked."
    ),
)


auth_account_delete = extend_schema(
    operation_id="auth_account_delete",
    summary="Delete the caller's account",
    description=(
        "Throttled per user. Given the account's password: its active matches are resigned, "
        "its waiting matches left, its draft tournaments declined and the tournaments it "
        "organizes cancelled; then the login, the password and every token go (their streams "
        'end), and the player becomes an anonymous "Deleted player" in the matches it '
        "played. A wrong password is `400 invalid` naming it and counts as a failed login."
    ),
)
