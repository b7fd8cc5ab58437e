"""A shop in one DynamoDB table: customers, their orders and order lines (single-table design)."""
