"""Batch geocoding results from TomTom's answer as documented: every row back, in input
order, matched or why not; the model's text bounded; the view's rows inline or in pages."""

from __future__ import annotations

import itertools

import orjson
import pytest

from tests.fixtures.tomtom import documented
from tests.server.harness import coordinate_lists
from tomtom_mcp_apps import fitting
from tomtom_mcp_apps.server.bodies import RawBody
from tomtom_mcp_apps.server.errors import BadAnswer
from tomtom_mcp_apps.server.jobs import APP_DATA_KEY, JOB_KEY, RowsPlan, batch_page, batch_result
from tomtom_mcp_apps.server.jobs._batch_geocode import ATTENTION_ROWS, read_rows

INPUTS = ["Damrak 1, Amsterdam", "qqqzzz xx", "Hengelo", "Kerkstraat 12", "Paris"]


def raw(body: dict) -> RawBody:
    return RawBody(orjson.dumps(body))


def test_every_documented_item_becomes_its_row_matched_or_saying_why_not() -> None:
    rows = read_rows(raw(documented("batch_search")), RowsPlan(5), INPUTS)
    assert rows.quality == ["M", "U", "A", "L", "U"]
    damrak, none, hengelo, kerkstraat, refused = rows.details
    assert damrak["address"] == "Damrak 1, 1012 LG Amsterdam" and damrak["match"] == "Point Address"
    assert damrak["position"] == [4.89649, 52.37588] and damrak["confidence"] == 1.0
    assert none == {"row": 2, "input": "qqqzzz xx", "q": "U", "why": "no match"}
    assert [c["address"] for c in hengelo["candidates"]] == [
        "Hengelo, Overijssel",
        "Hengelo, Bronckhorst",
    ]
    assert kerkstraat["confidence"] == 0.55
    assert (
        refused["why"]
        == "TomTom refused it (HTTP 400): Error parsing 'limit': Value 0 is not in range [1, 100]"
    )
    assert rows.counts() == {"matched": 1, "low_confidence": 1, "ambiguous": 1, "unmatched": 2}


def test_empty_rows_keep_their_place_and_were_never_sent() -> None:
    plan = RowsPlan(7, empty=(2, 5))
    inputs = [INPUTS[0], "", *INPUTS[1:3], " ", *INPUTS[3:]]
    rows = read_rows(raw(documented("batch_search")), plan, inputs)
    assert rows.quality == ["M", "E", "U", "A", "E", "L", "U"]
    assert rows.details[1] == {"row": 2, "q": "E", "why": "the row is empty", "input": ""}
    assert plan.rows_of_items().tolist() == [1, 3, 4, 6, 7]


def test_without_the_inputs_tomtoms_reading_of_each_query_stands_in() -> None:
    rows = read_rows(raw(documented("batch_search")), RowsPlan(5), None)
    assert [d.get("input") for d in rows.details] == [
        "damrak 1 amsterdam", "qqqzzz xx", "hengelo", "kerkstraat 12", None,
    ]  # fmt: skip


def test_an_answer_with_another_number_of_items_than_queries_is_refused_naming_it() -> None:
    with pytest.raises(BadAnswer, match="expected 6 items, one per query sent, got 5"):
        read_rows(raw(documented("batch_search")), RowsPlan(6), None)


def test_malformed_items_and_results_are_rows_unmatched_and_counted() -> None:
    body = documented("batch_search")
    body["batchItems"][0] = None
    body["batchItems"][3]["response"]["results"].insert(0, {"position": {"lat": "x"}})
    rows = read_rows(raw(body), RowsPlan(5), INPUTS)
    assert rows.quality[0] == "U" and "malformed" in rows.details[0]["why"]
    assert rows.quality[3] == "L", "the malformed result is dropped, the good one kept"
    assert rows.malformed == 2


def test_the_model_reads_counts_and_the_rows_to_look_at_bounded_and_with_no_coordinates() -> None:
    body = documented("batch_search")
    body["batchItems"] = body["batchItems"] * 20  # 100 rows, 80 of them need a person
    result = batch_result(raw(body), RowsPlan(100), INPUTS * 20, True, 120_000, 500_000, None)
    text = result.text
    assert text["rows"] == 100 and text["matched"] == 20 and text["unmatched"] == 40
    assert len(text["need_attention"]) == ATTENTION_ROWS
    assert text["need_attention_more"] == 80 - ATTENTION_ROWS
    first = text["need_attention"][0]
    assert first == {"row": 2, "input": "qqqzzz xx", "status": "unmatched", "why": "no match"}
    assert coordinate_lists(text) == []
    assert result.outcome == "as_is"


def test_a_synchronous_batch_sends_every_row_inline_with_its_details() -> None:
    result = batch_result(
        raw(documented("batch_search")), RowsPlan(5), INPUTS, True, 120_000, 500_000, None
    )
    env = fitting.decode(result.meta[APP_DATA_KEY])
    batch = env["data"]["batch"]
    assert batch["q"] == "MUALU" and batch["conf"] == [100, -1, 93, 55, -1]
    assert [d.get("input") for d in batch["details"]] == INPUTS
    points = fitting.to_geojson(env["data"]["features"][0]["geometry"])["coordinates"]
    assert points == [[4.89649, 52.37588], [6.79267, 52.26568], [4.88643, 52.36454]]
    assert JOB_KEY not in result.meta and "job" not in result.text


def big_answer(rows: int) -> dict:
    """A batch answer of `rows` items, each a match somewhere in Europe."""
    template = documented("batch_search")["batchItems"][0]
    items = []
    for i in range(rows):
        item = orjson.loads(orjson.dumps(template))
        result = item["response"]["results"][0]
        result["position"] = {
            "lat": 36 + (i * 7919 % 2400) / 100,
            "lon": -9 + (i * 104729 % 3900) / 100,
        }
        result["address"]["freeformAddress"] = f"Street {i}, {1000 + i} Town {i % 97}"
        items.append(item)
    return {"formatVersion": "0.0.1", "batchItems": items, "summary": {}}


def test_a_large_batch_sends_its_positions_inline_and_the_rest_in_pages_of_its_job() -> None:
    body = raw(big_answer(3000))
    job = {"handle": "H", "kind": "batch-geocode", "rows": 3000, "submitted": 0}
    result = batch_result(body, RowsPlan(3000), None, True, 40_000, 60_000, job)
    assert result.outcome == "paged" and result.text["job"] == "H"
    assert result.meta[JOB_KEY]["state"] == "done"
    assert fitting.decode(result.meta[APP_DATA_KEY]) is not None
    batch = fitting.decode(result.meta[APP_DATA_KEY])["data"]["batch"]
    assert batch["to"] == 3000 and "details" not in batch, "every position, no addresses"
    bounds = batch["pages"]
    assert bounds[0] == 0 and bounds[-1] == 3000 and len(bounds) > 2
    seen = []
    for start, stop in itertools.pairwise(bounds):
        page = batch_page(body, RowsPlan(3000), start, stop)
        assert len(page.meta[APP_DATA_KEY]) <= 60_000 - 2_000
        rows = fitting.decode(page.meta[APP_DATA_KEY])["data"]["batch"]
        assert (rows["from"], rows["to"]) == (start, stop)
        seen += [d["address"] for d in rows["details"]]
    assert seen == [f"Street {i}, {1000 + i} Town {i % 97}" for i in range(3000)]


def test_a_page_is_the_same_bytes_on_every_replica() -> None:
    body = raw(big_answer(300))
    a = batch_page(body, RowsPlan(300), 100, 200).meta[APP_DATA_KEY]
    b = batch_page(raw(big_answer(300)), RowsPlan(300), 100, 200).meta[APP_DATA_KEY]
    assert a == b


def test_when_not_even_the_positions_fit_the_first_rows_go_inline() -> None:
    body = raw(big_answer(3000))
    job = {"handle": "H", "kind": "batch-geocode", "rows": 3000, "submitted": 0}
    result = batch_result(body, RowsPlan(3000), None, True, 12_000, 60_000, job)
    batch = fitting.decode(result.meta[APP_DATA_KEY])["data"]["batch"]
    assert 0 < batch["to"] < 3000 and batch["pages"][-1] == 3000
    assert result.text["map"].startswith(f"rows 1 to {batch['to']:,} inline")
