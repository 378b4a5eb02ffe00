"""What the served schema says of the tournament routes (docs/api.md): for each operation, named by
its operation id, one `extend_schema` with its id, summary, description and examples. The
views (tournaments/apis.py) stack it over what the operation takes and gives (their serializers,
parameters and error codes). The CSV standings' responses are here too."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema

_CSV_EXAMPLE = (
    "rank,player_id,display_name,is_bot,matches,byes,deals_played,deals_won,penalty,head_to_head\r\n"
    "1,3f0c…,Ana,false,3,0,12,5,84,0\r\n"
)
_CSV_EXAMPLES = [OpenApiExample("standings", value=_CSV_EXAMPLE, response_only=True)]

# The standings as CSV: `?format=csv` of the standings, and standings.csv (which names its rows).
standings_csv = OpenApiResponse(response=OpenApiTypes.STR, examples=_CSV_EXAMPLES)
standings_csv_file = OpenApiResponse(
    response=OpenApiTypes.STR,
    description="One row per entrant, best first: " + _CSV_EXAMPLE.split("\r\n")[0],
    examples=_CSV_EXAMPLES,
)


tournaments_list = extend_schema(
    operation_id="tournaments_list",
    summary="List tournaments, newest first",
    description=(
        "Public. Cursor pages of tournaments, newest first, by `status`; `invited=true` "
        "(token) keeps the drafts whose invitation to the caller awaits an answer."
    ),
)


tournaments_create = extend_schema(
    operation_id="tournaments_create",
    summary="Create a tournament",
    description=(
        "A tournament in draft. The people in `players` are invited and must accept before the"
        " start; an organizer has at most MAX_ACTIVE_TOURNAMENTS_PER_PLAYER tournaments in "
        "draft or running (`409 too_many_tournaments`). `format: duplicate` plays the same"
        " deals at every table of a round, the seats rotated, scored by matchpoints; its"
        " entrant count must be a multiple of table_size² (`400 invalid` says which fit)."
    ),
    examples=[
        OpenApiExample(
            "swiss of eight, bots fill",
            value={
                "name": "Friday cup",
                "players": ["8b7c1d52-0d3c-4f7e-9a51-6b1f2f6b2a10"],
                "bots": ["greedy", "greedy", "random", "ismcts"],
                "format": "swiss",
                "table_size": 3,
                "deals": 4,
                "rules": {"draw_policy": "free"},
                "fill_bots": "greedy",
                "rounds": 3,
            },
            request_only=True,
        ),
        OpenApiExample(
            "duplicate of four bots, two seats",
            value={
                "name": "Duplicate pairs",
                "bots": ["ismcts", "greedy", "greedy", "random"],
                "format": "duplicate",
                "table_size": 2,
                "deals": 4,
            },
            request_only=True,
        ),
    ],
)


tournaments_detail = extend_schema(
    operation_id="tournaments_detail",
    summary="Get a tournament",
    description="Public. The tournament with its entrants and the invitations still pending.",
)


tournaments_start = extend_schema(
    operation_id="tournaments_start",
    summary="Start a tournament",
    description=(
        "Organizer only. Deals round 1 and answers at once (bots play in the background); `409"
        " invitations_pending` until every invited person has accepted."
    ),
)


tournaments_cancel = extend_schema(
    operation_id="tournaments_cancel",
    summary="Cancel a tournament",
    description="Organizer only. No further round starts; matches already dealt play on.",
)


tournaments_invitation_accept = extend_schema(
    operation_id="tournaments_invitation_accept",
    summary="Accept an invitation",
    description="The invited caller enters the tournament (again: no change).",
)


tournaments_invitation_decline = extend_schema(
    operation_id="tournaments_invitation_decline",
    summary="Decline an invitation",
    description=(
        "The invited caller declines, or withdraws an acceptance before the start, and leaves "
        "the tournament."
    ),
)


tournaments_entrant_remove = extend_schema(
    operation_id="tournaments_entrant_remove",
    summary="Remove an entrant",
    description=(
        "Organizer only, before the start. Takes a player out of the tournament, invited or"
        " accepted, as if they had declined; a person removed is told (`tournament_withdrawn`)."
    ),
)


tournaments_standings = extend_schema(
    operation_id="tournaments_standings",
    summary="Get the standings",
    description=(
        "Public. Ranked rows by total penalty, deals won, then head-to-head (a duplicate"
        " tournament: by matchpoints first, counting a deal once every table has scored it);"
        " JSON, or CSV with `?format=csv` or `Accept: text/csv`."
    ),
)


tournaments_standings_csv = extend_schema(
    operation_id="tournaments_standings_csv",
    summary="Get the standings as CSV",
    description=(
        "Public. The standings as `text/csv` whatever the Accept header; error bodies stay JSON."
    ),
)


tournaments_tables = extend_schema(
    operation_id="tournaments_tables",
    summary="Get the rounds and tables",
    description=(
        "Public (`mine=true` needs a token). Every round's tables (match ids, seats) and byes."
    ),
)
