"""Describe this prefix's tables and a least-privilege IAM policy as a CloudFormation template.

The tables come from the models (`tables.expected_table`, what `create_tables` sends), so the
template and the tables the code creates cannot drift apart. The policy grants the data-plane
actions the DynamoDB layer and the admin's Tables pages perform, on these tables and their
indexes, and the Tables pages' on the further tables DYNAMO_ADMIN_TABLES names (ListTables
alone names no table: IAM cannot scope it); schema changes
(CreateTable, UpdateTable, DeleteTable) are CloudFormation's job and are not granted.
"""

from __future__ import annotations

import re
from typing import Any

from . import streams, tables
from .conf import dynamo_settings
from .models import DynamoModel, table_name_for

# What the application calls on a table: item reads and writes (transaction items are
# authorized one by one as PutItem, UpdateItem, DeleteItem, and a session's check on its
# learner as ConditionCheckItem), batches, paged Queries and Scans (admin changelists, backups), and
# DescribeTable (health check, dump and load). The admin's Tables pages add DescribeTimeToLive
# (a table's TTL attribute) and PartiQL, each statement authorized as its own action: SELECT
# for those who may browse, INSERT, UPDATE and DELETE for those who may change items (no more
# than PutItem, UpdateItem and DeleteItem already allow), the History entry an INSERT.
# The test suite's IAM audit fails if the code needs more or a full run uses less.
TABLE_ACTIONS = (
    "BatchGetItem",
    "BatchWriteItem",
    "ConditionCheckItem",
    "DeleteItem",
    "DescribeTable",
    "DescribeTimeToLive",
    "GetItem",
    "PartiQLDelete",
    "PartiQLInsert",
    "PartiQLSelect",
    "PartiQLUpdate",
    "PutItem",
    "Query",
    "Scan",
    "UpdateItem",
)
# Indexes are only read: Queries, and paged Scans of a sparse index (the gardener, the admin),
# and a Tables page's PartiQL SELECT of `"table"."index"`.
INDEX_ACTIONS = ("PartiQLSelect", "Query", "Scan")
# The Tables page lists the account's tables and shows those under the prefix: ListTables
# has no table to name, so it is granted on "*" and on nothing else.
ACCOUNT_ACTIONS = ("ListTables",)
# The admin's Tables pages on a table `DYNAMO_ADMIN_TABLES` allows beyond the prefix: the
# table actions above but the batches, which the pages never make (a bulk delete is one
# transaction), and INDEX_ACTIONS on its indexes. Their History entries go to the admin log,
# one of the prefix's tables.
BROWSED_TABLE_ACTIONS = tuple(a for a in TABLE_ACTIONS if not a.startswith("Batch"))
# A DynamoDB table name's characters, and the two glob wildcards IAM's resource ARNs share.
BROWSED_PATTERN = re.compile(r"[A-Za-z0-9_.*?-]{1,255}")
# Owned by CloudFormation in AWS; `create_tables` and `delete_tables` are for local engines.
SCHEMA_ACTIONS = frozenset({"CreateTable", "UpdateTable", "DeleteTable", "UpdateTimeToLive"})
# The template's parameter: the IAM role the web and worker hosts run as.
HOST_ROLE = "HostRoleName"
# What reading a table's stream takes (a consumer on a host, a rebuild reading back changes).
STREAM_ACTIONS = ("DescribeStream", "GetRecords", "GetShardIterator")
# A model whose Meta names a `stream_handler` (a dotted path) gets a Lambda reading its stream,
# granted the stream's reads and `stream_handler_grants` ({table suffix: actions}) only; one
# naming a `stream_watcher` gets a Lambda started on a schedule, granted the stream's reads and
# `stream_watcher_grants`, to say how far the handler has got (a batch cannot say).
LAMBDA_RUNTIME = "python3.11"
# Lambda retries a failing batch, halving it each time, then sends what still fails here.
HANDLER_RETRIES = 10
HANDLER_BATCH = 100
# EventBridge's shortest rate; each run lasts WATCHER_TIMEOUT less the watcher's own margin.
WATCHER_EVERY = "rate(1 minute)"
WATCHER_TIMEOUT = 70
WATCHER_MEMORY = 256
CODE_BUCKET, CODE_KEY, SECRET_KEY, SITE_URL = "CodeBucket", "CodeKey", "DjangoSecretKey", "SiteUrl"


def logical_id(model: type[DynamoModel]) -> str:
    """Return the template's name for a model's table (`user-skills` -> `UserSkillsTable`)."""
    words = model.Meta.table_suffix.replace("_", "-").split("-")
    return "".join(word.capitalize() for word in words) + "Table"


def table_resource(model: type[DynamoModel], prefix: str) -> dict[str, Any]:
    """Return the AWS::DynamoDB::Table resource for a model under a prefix."""
    request = tables.expected_table(model)
    properties: dict[str, Any] = {
        "TableName": table_name_for(model, prefix),
        "AttributeDefinitions": request["AttributeDefinitions"],
        "KeySchema": request["KeySchema"],
        "BillingMode": "PAY_PER_REQUEST",
        "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": True},
        "DeletionProtectionEnabled": True,
    }
    if request.get("GlobalSecondaryIndexes"):
        # Multi-attribute keys are listed as the API takes them: HASH entries first, then
        # RANGE entries, each in the order a Query walks them.
        properties["GlobalSecondaryIndexes"] = request["GlobalSecondaryIndexes"]
    if (view := tables.stream_view_type(model)) is not None:
        properties["StreamSpecification"] = {"StreamViewType": view}
    if (attribute := tables.ttl_attribute(model)) is not None:
        properties["TimeToLiveSpecification"] = {"AttributeName": attribute, "Enabled": True}
    return {
        "Type": "AWS::DynamoDB::Table",
        "DeletionPolicy": "Retain",
        "UpdateReplacePolicy": "Retain",
        "Properties": properties,
    }


def index_names(model: type[DynamoModel]) -> list[str]:
    """Return the names of a model's global secondary indexes."""
    return [i["IndexName"] for i in tables.expected_table(model).get("GlobalSecondaryIndexes", [])]


def streamed(models: list[type[DynamoModel]]) -> list[type[DynamoModel]]:
    """Return the models whose table has a stream."""
    return [m for m in models if tables.stream_view_type(m) is not None]


def stream_arn(model: type[DynamoModel]) -> dict[str, Any]:
    return {"Fn::GetAtt": [logical_id(model), "StreamArn"]}


def policy_resource(models: list[type[DynamoModel]], prefix: str) -> dict[str, Any]:
    """Return the AWS::IAM::ManagedPolicy granting the application's actions on these tables."""
    table_arns = [{"Fn::GetAtt": [logical_id(m), "Arn"]} for m in models]
    index_arns = [
        {"Fn::Sub": f"${{{logical_id(m)}.Arn}}/index/{name}"}
        for m in models
        for name in index_names(m)
    ]
    statements = [
        {
            "Sid": "Tables",
            "Effect": "Allow",
            "Action": [f"dynamodb:{action}" for action in TABLE_ACTIONS],
            "Resource": table_arns,
        },
    ]
    if index_arns:
        statements.append(
            {
                "Sid": "Indexes",
                "Effect": "Allow",
                "Action": [f"dynamodb:{action}" for action in INDEX_ACTIONS],
                "Resource": index_arns,
            }
        )
    if streamed(models):
        statements.append(
            {
                "Sid": "Streams",
                "Effect": "Allow",
                "Action": [f"dynamodb:{action}" for action in STREAM_ACTIONS],
                "Resource": [stream_arn(m) for m in streamed(models)],
            }
        )
    statements += browsed_statements(models, prefix)
    statements.append(
        {
            "Sid": "TableNames",
            "Effect": "Allow",
            "Action": [f"dynamodb:{action}" for action in ACCOUNT_ACTIONS],
            "Resource": ["*"],
        }
    )
    return {
        "Type": "AWS::IAM::ManagedPolicy",
        "Properties": {
            "Description": f"The application's DynamoDB access to the {prefix}* tables",
            "PolicyDocument": {"Version": "2012-10-17", "Statement": statements},
            # Attached by the stack, so the hosts can use the tables once it is deployed.
            "Roles": [{"Ref": HOST_ROLE}],
        },
    }


def browsed_patterns(models: list[type[DynamoModel]], prefix: str) -> list[str]:
    """Return the `DYNAMO_ADMIN_TABLES` patterns that reach past this prefix's own tables.

    Raise ValueError for one IAM cannot express (a `[...]` class, a character no table name
    holds): it would grant something else than the pages allow.
    """
    patterns = dynamo_settings.DYNAMO_ADMIN_TABLES or []
    own = {table_name_for(m, prefix) for m in models}
    for pattern in patterns:
        if not BROWSED_PATTERN.fullmatch(pattern):
            raise ValueError(
                f"DYNAMO_ADMIN_TABLES holds {pattern!r}: an IAM policy can only name tables by "
                "their letters, digits, '_', '-' and '.', with '*' and '?' as wildcards."
            )
    return [p for p in patterns if p not in own]


def browsed_statements(models: list[type[DynamoModel]], prefix: str) -> list[dict[str, Any]]:
    """Return the grants of the Tables pages on the tables DYNAMO_ADMIN_TABLES adds, if any."""
    patterns = browsed_patterns(models, prefix)
    if not patterns:
        return []
    arn = "arn:${AWS::Partition}:dynamodb:${AWS::Region}:${AWS::AccountId}:table/"
    return [
        {
            "Sid": "BrowsedTables",
            "Effect": "Allow",
            "Action": [f"dynamodb:{action}" for action in BROWSED_TABLE_ACTIONS],
            "Resource": [{"Fn::Sub": f"{arn}{pattern}"} for pattern in patterns],
        },
        {
            "Sid": "BrowsedIndexes",
            "Effect": "Allow",
            "Action": [f"dynamodb:{action}" for action in INDEX_ACTIONS],
            "Resource": [{"Fn::Sub": f"{arn}{pattern}/index/*"} for pattern in patterns],
        },
    ]


def handled(models: list[type[DynamoModel]]) -> list[type[DynamoModel]]:
    """Return the streamed models whose Meta names a Lambda handler for the stream."""
    return [m for m in streamed(models) if getattr(m.Meta, "stream_handler", None)]


def watched(models: list[type[DynamoModel]]) -> list[type[DynamoModel]]:
    """Return the streamed models whose Meta names a scheduled Lambda watching the stream."""
    return [m for m in streamed(models) if getattr(m.Meta, "stream_watcher", None)]


def table_grants(
    model: type[DynamoModel], models: list[type[DynamoModel]], grants: dict[str, Any]
) -> list[dict[str, Any]]:
    """Return one statement a table of `grants` ({table suffix: actions})."""
    by_suffix = {m.Meta.table_suffix: m for m in models}
    return [
        {
            "Sid": logical_id(by_suffix[suffix]),
            "Effect": "Allow",
            "Action": [f"dynamodb:{action}" for action in actions],
            "Resource": [{"Fn::GetAtt": [logical_id(by_suffix[suffix]), "Arn"]}],
        }
        for suffix, actions in grants.items()
    ]


def function_resources(
    name: str, function: str, prefix: str, grants: list[dict[str, Any]], properties: dict
) -> dict[str, Any]:
    """Return a Lambda function of the code package, its log group and its role (`grants` and
    the log group's writes only)."""
    logs = {
        "Sid": "Logs",
        "Effect": "Allow",
        "Action": ["logs:CreateLogStream", "logs:PutLogEvents"],
        "Resource": [{"Fn::GetAtt": [f"{name}Logs", "Arn"]}],
    }
    return {
        f"{name}Logs": {
            "Type": "AWS::Logs::LogGroup",
            "Properties": {"LogGroupName": f"/aws/lambda/{function}", "RetentionInDays": 30},
        },
        f"{name}Role": {
            "Type": "AWS::IAM::Role",
            "Properties": {
                "AssumeRolePolicyDocument": {
                    "Version": "2012-10-17",
                    "Statement": [
                        {
                            "Effect": "Allow",
                            "Principal": {"Service": "lambda.amazonaws.com"},
                            "Action": "sts:AssumeRole",
                        }
                    ],
                },
                "Policies": [
                    {
                        "PolicyName": function.removeprefix(prefix),
                        "PolicyDocument": {"Version": "2012-10-17", "Statement": [*grants, logs]},
                    }
                ],
            },
        },
        f"{name}Handler": {
            "Type": "AWS::Lambda::Function",
            "DependsOn": f"{name}Logs",
            "Properties": {
                "FunctionName": function,
                "Runtime": LAMBDA_RUNTIME,
                "Code": {"S3Bucket": {"Ref": CODE_BUCKET}, "S3Key": {"Ref": CODE_KEY}},
                "Role": {"Fn::GetAtt": [f"{name}Role", "Arn"]},
                "Environment": {
                    "Variables": {
                        "DYNAMODB_TABLE_PREFIX": prefix,
                        "DJANGO_SECRET_KEY": {"Ref": SECRET_KEY},
                        "SITE_URL": {"Ref": SITE_URL},
                    }
                },
                **properties,
            },
        },
    }


def stream_reads(model: type[DynamoModel]) -> dict[str, Any]:
    return {
        "Sid": "Stream",
        "Effect": "Allow",
        "Action": [f"dynamodb:{action}" for action in STREAM_ACTIONS],
        "Resource": [stream_arn(model)],
    }


def handler_resources(
    model: type[DynamoModel], models: list[type[DynamoModel]], prefix: str
) -> dict[str, Any]:
    """Return the Lambda of a model's stream: its role, function, mapping and failure queue."""
    name = logical_id(model).removesuffix("Table") + "Stream"
    grants = [
        stream_reads(model),
        {  # Lambda's poller lists the table's streams (of any label) with the function's role
            "Sid": "StreamList",
            "Effect": "Allow",
            "Action": ["dynamodb:ListStreams"],
            "Resource": [{"Fn::Sub": f"${{{logical_id(model)}.Arn}}/stream/*"}],
        },
        *table_grants(model, models, model.Meta.stream_handler_grants),
        {
            "Sid": "FailedBatches",
            "Effect": "Allow",
            "Action": ["sqs:SendMessage"],
            "Resource": [{"Fn::GetAtt": [f"{name}FailedBatches", "Arn"]}],
        },
    ]
    function = f"{table_name_for(model, prefix)}-stream"
    properties = {
        "Description": f"applies the {model.Meta.table_suffix} stream",
        "Handler": model.Meta.stream_handler,
        "Timeout": 60,
        "MemorySize": 512,
    }
    return {
        f"{name}FailedBatches": {
            "Type": "AWS::SQS::Queue",
            "Properties": {"MessageRetentionPeriod": 1209600, "SqsManagedSseEnabled": True},
        },
        **function_resources(name, function, prefix, grants, properties),
        f"{name}Mapping": {
            "Type": "AWS::Lambda::EventSourceMapping",
            "Properties": {
                "EventSourceArn": stream_arn(model),
                "FunctionName": {"Ref": f"{name}Handler"},
                "StartingPosition": "TRIM_HORIZON",
                "BatchSize": HANDLER_BATCH,
                "MaximumBatchingWindowInSeconds": streams.BATCH_WINDOW,
                "ParallelizationFactor": 1,  # one batch at a time a shard: in order
                "BisectBatchOnFunctionError": True,
                "MaximumRetryAttempts": HANDLER_RETRIES,
                "DestinationConfig": {
                    "OnFailure": {"Destination": {"Fn::GetAtt": [f"{name}FailedBatches", "Arn"]}}
                },
            },
        },
    }


def watcher_resources(
    model: type[DynamoModel], models: list[type[DynamoModel]], prefix: str
) -> dict[str, Any]:
    """Return the scheduled Lambda watching a model's stream: its role, function and schedule.

    The schedule starts it every minute; each run of the function watches until shortly
    before its timeout (WATCHER_TIMEOUT, longer than the minute), so the next run has started
    before the last stops. The stream's ARN is in the schedule's input: the function needs no
    DescribeTable.
    """
    name = logical_id(model).removesuffix("Table") + "StreamWatch"
    grants = [stream_reads(model), *table_grants(model, models, model.Meta.stream_watcher_grants)]
    function = f"{table_name_for(model, prefix)}-stream-watch"
    properties = {
        "Description": f"says how far the {model.Meta.table_suffix} stream is applied",
        "Handler": model.Meta.stream_watcher,
        "Timeout": WATCHER_TIMEOUT,
        "MemorySize": WATCHER_MEMORY,
    }
    return {
        **function_resources(name, function, prefix, grants, properties),
        f"{name}Schedule": {
            "Type": "AWS::Events::Rule",
            "Properties": {
                "Description": f"starts {function}",
                "ScheduleExpression": WATCHER_EVERY,
                "Targets": [
                    {
                        "Id": "watcher",
                        "Arn": {"Fn::GetAtt": [f"{name}Handler", "Arn"]},
                        "Input": {
                            "Fn::Sub": f'{{"StreamArn": "${{{logical_id(model)}.StreamArn}}"}}'
                        },
                    }
                ],
            },
        },
        f"{name}Invoke": {
            "Type": "AWS::Lambda::Permission",
            "Properties": {
                "Action": "lambda:InvokeFunction",
                "FunctionName": {"Ref": f"{name}Handler"},
                "Principal": "events.amazonaws.com",
                "SourceArn": {"Fn::GetAtt": [f"{name}Schedule", "Arn"]},
            },
        },
    }


def template(prefix: str | None = None) -> dict[str, Any]:
    """Return the CloudFormation template of every table under a prefix and its IAM policy."""
    models = tables.all_models()
    prefix = (
        prefix
        if prefix is not None
        else models[0].Meta.table_name.removesuffix(models[0].Meta.table_suffix)
    )
    resources: dict[str, Any] = {logical_id(m): table_resource(m, prefix) for m in models}
    resources["DynamoDBAccessPolicy"] = policy_resource(models, prefix)
    outputs: dict[str, Any] = {
        logical_id(m): {"Value": {"Ref": logical_id(m)}, "Description": "table name"}
        for m in models
    }
    outputs["DynamoDBAccessPolicy"] = {
        "Value": {"Ref": "DynamoDBAccessPolicy"},
        "Description": f"attached to the {HOST_ROLE} role",
    }
    parameters: dict[str, Any] = {
        HOST_ROLE: {
            "Type": "String",
            "Description": "the IAM role of the web and worker hosts (instance or task role)",
            "AllowedPattern": r"[\w+=,.@-]{1,64}",
        }
    }
    for model in handled(models):
        resources |= handler_resources(model, models, prefix)
        queue = logical_id(model).removesuffix("Table") + "StreamFailedBatches"
        outputs[queue] = {"Value": {"Ref": queue}, "Description": "batches the handler gave up on"}
    for model in watched(models):
        resources |= watcher_resources(model, models, prefix)
    if handled(models) or watched(models):
        parameters |= {
            CODE_BUCKET: {"Type": "String", "Description": "the S3 bucket of the code package"},
            CODE_KEY: {"Type": "String", "Description": "the code package's key (a .zip)"},
            SECRET_KEY: {"Type": "String", "NoEcho": True, "MinLength": 50},
            SITE_URL: {"Type": "String", "Description": "the public address (https://...)"},
        }
    return {
        "AWSTemplateFormatVersion": "2010-09-09",
        "Description": f"The DynamoDB tables {prefix}* and the IAM policy to use them",
        "Parameters": parameters,
        "Resources": resources,
        "Outputs": outputs,
    }
