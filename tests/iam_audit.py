"""Audit the generated IAM policy against every metered DynamoDB call of the run.

Every (action, table or index) a metered request or command performs must be granted by
`export_cloudformation`'s policy, whatever tests run. When the whole suite runs and passes,
every granted action and every granted table or index must have been used.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from dynamo import cloudformation, meter, tables
from tests import dynamodb_calls

TESTS_DIR = Path(__file__).resolve().parent
_seen: set[tuple[str, str]] = set()
_partial = False
_audited: list[int] = []  # the pairs a whole run performed, once it passed the audit


def suffix_of(name: str) -> str | None:
    """Return the model table name a prefixed name ends with (the longest), or None."""
    if name == "*":
        return name
    table, _, index = name.partition("/index/")
    table, stream, _ = table.partition("/stream")
    suffixes = [m.Meta.table_suffix for m in tables.all_models()]
    matches = [s for s in suffixes if table == s or table.endswith(f"-{s}")]
    if not matches:
        return None
    return max(matches, key=len) + (f"/index/{index}" if index else "") + stream


def role_statements(template: dict, role: str) -> list[dict]:
    """Return the statements of one of a template's roles (its one inline policy)."""
    policies = template["Resources"][role]["Properties"]["Policies"]
    return policies[0]["PolicyDocument"]["Statement"]


def allowed(template: dict, statements: list[dict] | None = None) -> set[tuple[str, str]]:
    """Return the (action, table, `table/index/name` or `table/stream`) pairs a template's
    host policy grants, or the DynamoDB pairs of other `statements` of it (a role's)."""
    resources = template["Resources"]
    names = {
        key: r["Properties"]["TableName"]
        for key, r in resources.items()
        if r["Type"] == "AWS::DynamoDB::Table"
    }
    if statements is None:
        statements = resources["DynamoDBAccessPolicy"]["Properties"]["PolicyDocument"]["Statement"]
    granted = set()
    for statement in statements:
        if not all(action.startswith("dynamodb:") for action in statement["Action"]):
            continue  # a queue's or the logs': not DynamoDB's
        for resource in statement["Resource"]:
            if resource == "*":  # an account-wide action (ListTables)
                target = resource
            elif "Fn::GetAtt" in resource:
                key, attribute = resource["Fn::GetAtt"]
                target = names[key] + ("/stream" if attribute == "StreamArn" else "")
            else:
                ref, _, rest = resource["Fn::Sub"].removeprefix("${").partition(".Arn}")
                target = names[ref] + rest
            for action in statement["Action"]:
                granted.add((action.removeprefix("dynamodb:"), target))
    return granted


def _observe(endpoint: str, operation: str, params: dict) -> None:
    if meter.current() is None:  # a test's own setup or check, not a request or command
        return
    for action, name in meter.targets(operation, params):
        _seen.add((action, suffix_of(name) or name))


_left_alone: set[str] = set()  # modules whose tests `-m "not alone"` left for their own run


def pytest_deselected(items):
    # `make test` runs the `alone` tests in a pytest of their own: leaving them out here does
    # not make the run partial, so the rest of the suite must still use every grant.
    global _partial
    for item in items:
        if item.get_closest_marker("alone") is None:
            _partial = True
        else:
            _left_alone.add(Path(str(item.path)).name)


def pytest_collection_finish(session):
    global _partial
    collected = {Path(str(item.path)).name for item in session.items} | _left_alone
    every_module = {path.name for path in TESTS_DIR.glob("test_*.py")}
    if session.config.option.keyword or every_module - collected:
        _partial = True


def performed_actions(seen: set[tuple[str, str]]) -> set[tuple[str, str]]:
    """Return the (action, table or index) pairs seen, less the schema actions."""
    return {(a, n) for a, n in seen if a not in cloudformation.SCHEMA_ACTIONS}


def unused_grants(performed: set[tuple[str, str]]) -> list[str]:
    """Say which granted actions and tables or indexes nothing in the run performed."""
    # The policy grants one action list on every table, so "nothing else" is checked per
    # action and per table or index: each must be exercised somewhere in the suite.
    granted = allowed(cloudformation.template(""))
    unused_actions = {a for a, _ in granted} - {a for a, _ in performed}
    unused_targets = {t for _, t in granted} - {t for _, t in performed}
    problems = []
    if unused_actions:
        problems.append(f"the policy grants actions nothing performs: {unused_actions}")
    if unused_targets:
        problems.append(f"the policy names tables nothing touches: {unused_targets}")
    return problems


@pytest.fixture(scope="session", autouse=True)
def iam_audit(request):
    """Record every metered DynamoDB call of the session and check it against the policy."""
    dynamodb_calls.watchers.append(_observe)
    yield
    dynamodb_calls.watchers.remove(_observe)
    performed = performed_actions(_seen)
    refused = sorted(performed - allowed(cloudformation.template("")))
    assert not refused, f"the code performs what the generated IAM policy refuses: {refused}"
    workeroutput = getattr(request.config, "workeroutput", None)
    if workeroutput is not None:  # an xdist worker ran a share: the controller checks the whole
        workeroutput["iam_seen"] = sorted(_seen)
        workeroutput["iam_partial"] = _partial
        return
    if not _partial and request.session.testsfailed == 0:
        problems = unused_grants(performed)
        assert not problems, "; ".join(problems)
        _audited.append(len(performed))


# The controller of a run spread over xdist workers: what every worker saw, put together.
_workers_seen: set[tuple[str, str]] = set()
_workers: list[bool] = []  # each finished worker's "ran a partial selection"


@pytest.hookimpl(optionalhook=True)  # an xdist hook: called only when xdist runs the suite
def pytest_testnodedown(node, error):
    output = getattr(node, "workeroutput", {})
    _workers_seen.update(tuple(pair) for pair in output.get("iam_seen", ()))
    # A worker that died sent nothing: the run cannot say what went unused.
    _workers.append(error is not None or output.get("iam_partial", True))


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session, exitstatus):
    if not _workers or any(_workers) or exitstatus != pytest.ExitCode.OK:
        return
    performed = performed_actions(_workers_seen)
    problems = unused_grants(performed)
    if problems:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        for problem in problems:
            reporter.write_line(f"IAM audit failed: {problem}", red=True, bold=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
    else:
        _audited.append(len(performed))


def pytest_terminal_summary(terminalreporter):
    if _audited:
        terminalreporter.write_line(
            f"IAM audit: {_audited[0]} (action, table or index) pairs performed, each granted "
            "by the generated policy, and every grant used"
        )
