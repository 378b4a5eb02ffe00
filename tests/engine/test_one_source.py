"""One source for each rule fact in the engine: no constant is defined in two modules (a phase,
an action, a penalty table or a bot's weight means one thing under one name), and the fast
path's phase codes are the reference's phases."""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from pathlib import Path

from games.engine import fast, state

ENGINE = Path(__file__).resolve().parents[2] / "games" / "engine"
CONSTANT = re.compile(r"_?[A-Z][A-Z0-9_]*")


def module_constants(path: Path) -> set[str]:
    """The UPPER_CASE names a module assigns at its top level (imports are not assignments)."""
    names: set[str] = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign):
            targets: list[ast.expr] = list(node.targets)
        elif isinstance(node, ast.AnnAssign):
            targets = [node.target]
        else:
            continue
        for target in targets:
            names |= {
                n.id
                for n in ast.walk(target)
                if isinstance(n, ast.Name) and CONSTANT.fullmatch(n.id)
            }
    return names


def test_no_constant_is_defined_in_two_engine_modules() -> None:
    defined: defaultdict[str, list[str]] = defaultdict(list)
    for path in sorted(ENGINE.rglob("*.py")):
        for name in module_constants(path):
            defined[name].append(str(path.relative_to(ENGINE)))
    twice = {name: paths for name, paths in defined.items() if len(paths) > 1}
    assert twice == {}


def test_fast_phase_codes_are_the_reference_phases() -> None:
    assert fast.PHASE_NAMES is state.PHASES
    codes = (fast.OPENING_CODE, fast.PLAY_CODE, fast.ACE_FOLLOWUP_CODE, fast.DEAL_OVER_CODE)
    names = (state.OPENING, state.PLAY_PHASE, state.ACE_FOLLOWUP, state.DEAL_OVER)
    assert [state.PHASES[code] for code in codes] == list(names)
