"""A toy library: shelves and the books on them, to test dynamo_admin without a domain app."""
