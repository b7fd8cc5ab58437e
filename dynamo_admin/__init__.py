"""Django's admin over DynamoDB tables mapped with PynamoDB."""
