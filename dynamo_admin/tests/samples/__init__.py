"""The AWS DynamoDB Developer Guide's sample tables, as plain PynamoDB models a team writes.

Their tables are made with boto3 by the tests, before the admin is involved; the models are
`pynamodb.models.Model` subclasses with their `Meta` as written (the host is set by the test
to its engine, as a project's settings would).
"""
