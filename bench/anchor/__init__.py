"""A throwaway Django project serving the benchmark's learners (SQLite, PostgreSQL): the anchor.

bench/admin_pages.py compares Skillboard's admin pages with the same pages of Django's own
admin over the same rows, options and inlines (bench/anchor/learners/admin.py). It runs in
a child process (`python -m anchor.serve` from bench/), since two Django projects cannot
share one: settings are global.
"""
