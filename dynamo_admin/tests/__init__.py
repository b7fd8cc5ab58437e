"""dynamo_admin's own tests, on a toy library app and moto: no Skillboard app is installed.

Run them with `python -m pytest dynamo_admin/tests --ds=dynamo_admin.tests.settings`.
"""
