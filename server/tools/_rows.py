"""A batch's input rows: the `addresses` given, or the lines or a column of a file.

A file (`data_url`) is one address a line (commas are part of addresses), or CSV
(comma, semicolon, tab or bar, the one its first line uses most) when `column` names
which column holds the address (its header name, or its number from 1) or several,
joined with ", " (street, town and postcode in separate columns), or when the first line
is a header naming an address column. `header` says whether the first line names the
columns (by default: when `column` is a name, or the first line names an address
column). Every row is kept, empty ones too, so row numbers are the file's; refusals name
the row or the column and say what to change.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence

from mcp.server.mcpserver.exceptions import ToolError

MAX_ADDRESS_CHARS = 500
"""A longer row is refused: no address is this long, and TomTom would bill a failure."""
_DELIMITERS = ",;\t|"
_ADDRESS_HEADERS = ("address", "full_address", "fulladdress", "address_line", "location", "adres")


def text_of(body: bytes) -> str:
    """A downloaded file's text: UTF-8 (a byte-order mark dropped), else Windows-1252."""
    try:
        return body.decode("utf-8-sig")
    except UnicodeDecodeError:
        return body.decode("cp1252", errors="replace")


def rows_of_file(
    text: str, column: str | int | Sequence[str | int] | None, header: bool | None
) -> list[str]:
    """The address of every data row of `text` (a header line excluded), in order."""
    lines = text.splitlines()
    while lines and not lines[-1].strip():
        lines.pop()  # a trailing newline is no row
    if not lines:
        raise ToolError("data_url: the file is empty.")
    wanted = [column] if isinstance(column, str | int) else list(column or ())
    delimiter = max(_DELIMITERS, key=lines[0].count)
    first = [cell.strip().lower().replace(" ", "_") for cell in lines[0].split(delimiter)]
    named = lines[0].count(delimiter) > 0 and any(c in _ADDRESS_HEADERS for c in first)
    if header is None:
        header = named or any(isinstance(c, str) and not c.isdigit() for c in wanted)
    if not wanted and not named and not header:
        return [line.strip() for line in lines]
    table = list(csv.reader(io.StringIO("\n".join(lines)), delimiter=delimiter))
    names = [name.strip() for name in table[0]] if header else []
    body = table[1:] if header else table
    picks = _columns(wanted, names, len(table[0]))
    rows = []
    for cells in body:
        parts = [cells[i].strip() for i in picks if i < len(cells) and cells[i].strip()]
        rows.append(", ".join(parts))
    return rows


def _columns(wanted: list[str | int], names: list[str], width: int) -> list[int]:
    """The 0-based indices of the columns asked for (or of the address column)."""
    shown = ", ".join(names[:8]) + (", ..." if len(names) > 8 else "")
    if not wanted:
        if width == 1:
            return [0]
        found = [i for i, n in enumerate(names) if n.lower().replace(" ", "_") in _ADDRESS_HEADERS]
        if found:
            return found[:1]
        described = f" ({shown})" if names else ""
        raise ToolError(
            f"data_url: the file has {width} columns{described}; say which holds the address "
            "with column (its header name, its number from 1, or several to join, such as "
            "['street', 'city', 'postcode'])."
        )
    picks = []
    for want in wanted:
        if isinstance(want, int) or (isinstance(want, str) and want.isdigit()):
            number = int(want)
            if not 1 <= number <= width:
                raise ToolError(
                    f"column: the file has {width} columns; column {number} does not exist "
                    "(columns are numbered from 1)."
                )
            picks.append(number - 1)
            continue
        if not names:
            raise ToolError(
                f"column: {want!r} is a name, but the file has no header line (header is "
                "false); give the column's number from 1."
            )
        lowered = [n.lower() for n in names]
        if want.strip().lower() not in lowered:
            raise ToolError(f"column: {want!r} is not in the file's header ({shown}).")
        picks.append(lowered.index(want.strip().lower()))
    return picks


def checked_rows(rows: list[str], limit: int, where: str) -> list[str]:
    """`rows`, unless there are none to send, too many, or one is too long to be an address."""
    if not rows:
        raise ToolError(f"{where}: there are no rows to geocode.")
    if len(rows) > limit:
        raise ToolError(
            f"{where}: {len(rows):,} rows; one batch takes at most {limit:,} (TomTom's limit): "
            "split it and geocode each part."
        )
    if not any(row.strip() for row in rows):
        raise ToolError(f"{where}: every row is empty.")
    for i, row in enumerate(rows):
        if len(row) > MAX_ADDRESS_CHARS:
            raise ToolError(
                f"{where}: row {i + 1} is {len(row):,} characters long; an address is at most "
                f"{MAX_ADDRESS_CHARS} (is the column right?)."
            )
    return rows
