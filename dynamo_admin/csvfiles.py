"""CSV as people open it in a spreadsheet: written safe from formulas, read back exactly.

A cell that a spreadsheet would run as a formula (starting with `=`, `+`, `-` when not a
number, `@`, a tab or a carriage return: OWASP's list) is written with a leading apostrophe,
and so is a cell that starts with an apostrophe, so reading undoes exactly what writing
added. Rows are split on the file's own line ends only, never inside a quoted cell nor at a
Unicode line separator (U+2028) in a cell, so a file reads the same from a page and a command.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator

from django.utils.translation import gettext as _

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
ESCAPE = "'"
BOM = "\ufeff"


class BadFile(ValueError):
    """A file that cannot be read as the format says (not a row's problem: the whole file's)."""


def escaped(cell: str) -> str:
    """Return a cell a spreadsheet shows as text, never runs (OWASP's CSV injection advice)."""
    if not cell:
        return cell
    negative_number = cell.startswith("-") and _is_number(cell)
    if cell.startswith(ESCAPE) or (cell.startswith(FORMULA_STARTS) and not negative_number):
        return ESCAPE + cell
    return cell


def unescaped(cell: str) -> str:
    """Return a cell as it was before escaped() (a leading apostrophe it added taken off)."""
    rest = cell[len(ESCAPE) :]
    if cell.startswith(ESCAPE) and rest.startswith((ESCAPE, *FORMULA_STARTS)):
        return rest
    return cell


def _is_number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True


def csv_lines(rows: Iterable[list[str]], escape: bool = True) -> Iterator[str]:
    """Return CSV text line by line, one line per row (the header is the first row)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    for row in rows:
        writer.writerow([escaped(cell) for cell in row] if escape else row)
        yield buffer.getvalue()
        buffer.seek(0)
        buffer.truncate()


def lines_of(text: str) -> io.StringIO:
    """Return a page's uploaded text as the command reads a file: split at line ends only."""
    return io.StringIO(text, newline="")


def read_rows(lines: Iterable[str]) -> Iterator[tuple[int, list[str] | str]]:
    """Yield (line number, cells or what is wrong) for each row after the header.

    The header comes first, as a row numbered 1. Raise BadFile for a file that is not CSV
    at all; a row that is wrong on its own (a NUL) is reported as that row's problem.
    """
    reader = csv.reader(_without_bom(lines), strict=True)
    try:
        for cells in reader:
            number = reader.line_num
            if any("\x00" in cell for cell in cells):
                yield number, _("a NUL character (\\x00) is in a cell")
                continue
            yield number, [unescaped(cell) for cell in cells]
    except csv.Error as exc:
        raise BadFile(
            _("Not CSV at line %(line)s: %(problem)s")
            % {
                "line": reader.line_num,
                "problem": exc,
            }
        ) from None


def _without_bom(lines: Iterable[str]) -> Iterator[str]:
    first = True
    for line in lines:
        yield line.removeprefix(BOM) if first else line
        first = False
