"""Write plain PynamoDB models of existing tables (DynamoDB's `inspectdb`), or their admin."""

from __future__ import annotations

from typing import Any

import botocore.session
from botocore.config import Config
from django.core.management.base import CommandError

from dynamo import meter
from dynamo.conf import dynamo_settings
from dynamo.management.base import DynamoCommand
from dynamo.models import is_local_endpoint, timeouts
from dynamo_admin.inspection import Sampled, admin_source, count, inspect_types, models_source

DEFAULT_SAMPLE = 100


class Command(DynamoCommand):
    help = (
        "Print plain PynamoDB models of existing tables (all of them when none is named), read "
        "from DescribeTable and a Scan of at most --sample items per table, then the read "
        "capacity that cost. A single table whose keys start with a type (`ORDER#…`) gets one "
        "model per type. With --admin, print an admin.py stub registering those models "
        "instead (each type's item_condition). Like inspectdb: `manage.py inspect_tables > "
        "models.py`."
    )

    def add_arguments(self, parser):
        parser.add_argument("tables", nargs="*", metavar="TABLE", help="Tables to inspect.")
        parser.add_argument(
            "--sample",
            type=int,
            default=DEFAULT_SAMPLE,
            metavar="N",
            help=f"Read at most N items of each table to find its attributes ({DEFAULT_SAMPLE}).",
        )
        parser.add_argument(
            "--admin",
            action="store_true",
            help="Print the admin.py stub of the models instead (the same sample tells types).",
        )
        parser.add_argument(
            "--endpoint-url",
            help="The DynamoDB endpoint (DYNAMODB_ENDPOINT by default; none for AWS itself).",
        )
        parser.add_argument("--region", help="The region (AWS_REGION by default).")

    def handle(self, *args, tables: list[str], sample: int, admin: bool = False, **options):
        if sample < 0:
            raise CommandError("--sample must be 0 or more.")
        endpoint = options.get("endpoint_url") or dynamo_settings.DYNAMODB_ENDPOINT
        region = options.get("region") or dynamo_settings.AWS_REGION
        client = self.client(endpoint, region)
        names = tables or self.all_tables(client)
        if not names:
            raise CommandError(f"There is no table at {endpoint or 'AWS'} in {region}.")
        sampled = [self.handle_one(client, name, sample) for name in names]
        classes: set[str] = set()
        inspected = [model for one in sampled for model in inspect_types(one, classes)]
        if admin:
            self.write_source(admin_source(inspected), "admin.py")
            return
        items = sum(len(one.items) for one in sampled)
        capacity = sum(one.capacity for one in sampled)
        self.write_source(
            models_source(inspected, endpoint=endpoint, region=region)
            + f"\n\n# Read {count(items, 'item')} of {count(len(sampled), 'table')} (at most "
            f"{sample} a table) for {capacity:g} read capacity units,\n"
            "# as each Scan's ReturnConsumedCapacity gave them.",
            "models.py",
        )

    def write_source(self, source: str, filename: str) -> None:
        """Print the written module, refused unless Python compiles it."""
        try:
            compile(source, filename, "exec")
        except (SyntaxError, ValueError) as exc:  # a bug of ours: table data is only literals
            raise CommandError(
                f"The {filename} written from these tables does not compile ({exc}); "
                "nothing was printed. Please report it."
            ) from None
        self.stdout.write(source, ending="")

    def client(self, endpoint: str | None, region: str) -> Any:
        """Return a metered botocore client for the endpoint, signed as the models would be."""
        connect, read, attempts = timeouts()
        keys = "local" if is_local_endpoint(endpoint) else None
        client = botocore.session.get_session().create_client(
            "dynamodb",
            region_name=region,
            endpoint_url=endpoint,
            aws_access_key_id=keys,
            aws_secret_access_key=keys,
            config=Config(
                connect_timeout=connect,
                read_timeout=read,
                retries={"total_max_attempts": attempts, "mode": "standard"},
            ),
        )
        return meter.instrument(client)

    def all_tables(self, client: Any) -> list[str]:
        """Return every table's name, page after page of ListTables."""
        names: list[str] = []
        request: dict[str, Any] = {}
        while True:
            page = client.list_tables(**request)
            names += page.get("TableNames", [])
            if "LastEvaluatedTableName" not in page:
                return names
            request["ExclusiveStartTableName"] = page["LastEvaluatedTableName"]

    def handle_one(self, client: Any, name: str, sample: int) -> Sampled:
        """Describe one table and Scan at most `sample` of its items."""
        try:
            table = client.describe_table(TableName=name)["Table"]
        except client.exceptions.ResourceNotFoundException:
            raise CommandError(f"There is no table named {name!r}.") from None
        sampled = Sampled(table)
        request: dict[str, Any] = {"TableName": name, "ReturnConsumedCapacity": "TOTAL"}
        while len(sampled.items) < sample:
            page = client.scan(**request, Limit=sample - len(sampled.items))
            sampled.items += page.get("Items", [])
            sampled.capacity += (page.get("ConsumedCapacity") or {}).get("CapacityUnits", 0)
            if "LastEvaluatedKey" not in page:
                break
            request["ExclusiveStartKey"] = page["LastEvaluatedKey"]
        return sampled
