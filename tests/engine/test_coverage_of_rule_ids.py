"""Every rule id of docs/rules.md (R-1, R-2, …) has a test named after it in tests/engine."""

from __future__ import annotations

import re
from pathlib import Path

TESTS = Path(__file__).resolve().parent
REPO_ROOT = TESTS.parent.parent
RULES_MD = REPO_ROOT / "docs" / "rules.md"


def rule_ids() -> list[int]:
    text = RULES_MD.read_text(encoding="utf-8")
    return sorted({int(n) for n in re.findall(r"\bR-(\d+)\b", text)})


def test_rule_ids_are_found_in_rules_md() -> None:
    ids = rule_ids()
    assert ids, "no R-n ids found in docs/rules.md"
    assert ids == list(range(1, max(ids) + 1)), "rule ids should run R-1 … R-n without gaps"


def test_every_rule_id_has_a_named_test() -> None:
    ids = rule_ids()
    source = "\n".join(path.read_text(encoding="utf-8") for path in sorted(TESTS.glob("test_*.py")))
    named = {int(n) for n in re.findall(r"^\s*def test_r(\d+)_", source, flags=re.MULTILINE)}
    missing = [f"R-{n}" for n in ids if n not in named]
    assert missing == [], f"rules without a test_r<n>_ test: {', '.join(missing)}"
