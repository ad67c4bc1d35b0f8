"""`tomtom-batch-geocode`: many addresses at once, every row back in input order.

Rows come as `addresses` or a file (`data_url`: text or CSV, `column`, `header`,
`_rows.py`), are checked before anything is sent (too many, an unknown column, a row
too long to be an address), and go to TomTom's Batch Search (`_batch_geocode.py`): a
synchronous batch for up to 100 rows, an asynchronous one beyond, resumed with its job
handle when TomTom takes longer than the call.
"""

from __future__ import annotations

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult

from tomtom_mcp_apps.server.downloads import download
from tomtom_mcp_apps.server.tools import _batch_geocode
from tomtom_mcp_apps.server.tools._caller import Caller
from tomtom_mcp_apps.server.tools._inputs import (
    MAX_BATCH_ROWS,
    Addresses,
    Column,
    CountrySet,
    Header,
    Language,
    RowsUrl,
    ShowUi,
)
from tomtom_mcp_apps.server.tools._rows import checked_rows, rows_of_file, text_of


async def batch_geocode(
    ctx: Context,
    addresses: Addresses = None,
    data_url: RowsUrl = None,
    column: Column = None,
    header: Header = None,
    countrySet: CountrySet = None,
    language: Language = None,
    show_ui: ShowUi = True,
) -> CallToolResult:
    if (addresses is None) == (data_url is None):
        raise ToolError("give exactly one of addresses (a list) or data_url (a CSV or text file)")
    if addresses is not None and (column is not None or header is not None):
        raise ToolError("column and header describe a data_url file; addresses is a plain list")
    caller = Caller.of(ctx)
    if data_url is not None:
        runtime = caller.runtime
        body = await download(runtime.downloads, data_url, runtime.settings, runtime.placement)
        rows = rows_of_file(text_of(body), column, header)
        where = "data_url"
    else:
        rows, where = list(addresses or ()), "addresses"
    rows = checked_rows(rows, MAX_BATCH_ROWS, where)
    params = {"countrySet": countrySet, "language": language}
    return await _batch_geocode.geocode(caller, rows, params, show_ui)
