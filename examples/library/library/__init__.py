"""A toy library: shelves and the books on them, a Django app whose data lives in DynamoDB."""
