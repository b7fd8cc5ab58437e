"""Audit the generated IAM policy against every DynamoDB call the meter records in the run.

Every (action, table or index) a metered request or command performs must be granted by
`export_cloudformation`'s policy, whatever tests run. When the whole suite runs and passes,
every granted action and every granted table or index must have been used.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from dynamo import cloudformation, meter, tables

TESTS_DIR = Path(__file__).resolve().parent
_seen: set[tuple[str, str]] = set()
_partial = False


def suffix_of(name: str) -> str | None:
    """Return the model table name a prefixed name ends with (the longest), or None."""
    if name == "*":
        return name
    table, _, index = name.partition("/index/")
    suffixes = [m.Meta.table_suffix for m in tables.all_models()]
    matches = [s for s in suffixes if table == s or table.endswith(f"-{s}")]
    if not matches:
        return None
    return max(matches, key=len) + (f"/index/{index}" if index else "")


def allowed(template: dict) -> set[tuple[str, str]]:
    """Return the (action, table or `table/index/name`) pairs a template's policy grants."""
    resources = template["Resources"]
    names = {
        key: r["Properties"]["TableName"]
        for key, r in resources.items()
        if r["Type"] == "AWS::DynamoDB::Table"
    }
    granted = set()
    for statement in resources["DynamoDBAccessPolicy"]["Properties"]["PolicyDocument"]["Statement"]:
        for resource in statement["Resource"]:
            if "Fn::GetAtt" in resource:
                target = names[resource["Fn::GetAtt"][0]]
            else:
                ref, _, rest = resource["Fn::Sub"].removeprefix("${").partition(".Arn}")
                target = names[ref] + rest
            for action in statement["Action"]:
                granted.add((action.removeprefix("dynamodb:"), target))
    return granted


def _observe(call: meter.Call) -> None:
    for action, name in call.targets:
        _seen.add((action, suffix_of(name) or name))


def pytest_deselected(items):
    global _partial
    _partial = True


def pytest_collection_finish(session):
    global _partial
    collected = {Path(str(item.path)).name for item in session.items}
    every_module = {path.name for path in TESTS_DIR.glob("test_*.py")}
    if session.config.option.keyword or every_module - collected:
        _partial = True


@pytest.fixture(scope="session", autouse=True)
def iam_audit(request):
    """Record every metered DynamoDB call of the session and check it against the policy."""
    meter.observers.append(_observe)
    yield
    meter.observers.remove(_observe)
    granted = allowed(cloudformation.template(""))
    performed = {(a, n) for a, n in _seen if a not in cloudformation.SCHEMA_ACTIONS}
    refused = sorted(performed - granted)
    assert not refused, f"the code performs what the generated IAM policy refuses: {refused}"
    if not _partial and request.session.testsfailed == 0:
        # The policy grants one action list on every table, so "nothing else" is checked per
        # action and per table or index: each must be exercised somewhere in the suite.
        unused_actions = {a for a, _ in granted} - {a for a, _ in performed}
        unused_targets = {t for _, t in granted} - {t for _, t in performed}
        assert not unused_actions, f"the policy grants actions nothing performs: {unused_actions}"
        assert not unused_targets, f"the policy names tables nothing touches: {unused_targets}"
