"""`tomtom-batch-geocode`, `tomtom-job-result` and `tomtom-resume-job` in process, over the
offline upstream: every row back, a long batch handed over with a job handle and resumed
on another replica, pages of rows for the view, and refusals in plain words."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import httpx
import pytest

from tests.server.harness import ISSUER, TILE_SECRET, assert_model_text, signed_in_as, tool_client
from tests.server.tools.files_host import files_served
from tomtom_mcp_apps import fitting
from tomtom_mcp_apps.server.jobs import APP_DATA_KEY, BATCH_PAGE_KEY, JOB_KEY
from tomtom_mcp_apps.server.offline import build_upstream_app

TOOL = "tomtom-batch-geocode"
MIXED = ["Damrak 1, Amsterdam", "??", "Springfield", "Hoofdstraat 12", "", "Lisbon"]


def upstream(seconds: float = 0.0) -> httpx.ASGITransport:
    """One offline upstream that replicas share, its asynchronous batches taking `seconds`."""
    return httpx.ASGITransport(
        app=build_upstream_app(slow_answer_s=2.0, batch_seconds=lambda n: seconds)
    )


async def test_a_small_batch_answers_every_row_in_order_with_what_needs_a_person() -> None:
    async with tool_client() as tools:
        outcome = await tools.call(TOOL, {"addresses": MIXED})
        in_nl = await tools.call(TOOL, {"addresses": ["Hoofdstraat 12"], "countrySet": "NL"})
    answer = assert_model_text(outcome, TOOL)
    assert (answer["rows"], answer["matched"], answer["low_confidence"]) == (6, 2, 0)
    assert (answer["ambiguous"], answer["unmatched"], answer["empty"]) == (1, 2, 1)
    said = {row["row"]: row for row in answer["need_attention"]}
    assert said[2] == {"row": 2, "input": "??", "status": "unmatched", "why": "no match"}
    assert said[3]["status"] == "ambiguous" and len(said[3]["candidates"]) == 3
    assert said[4]["status"] == "unmatched", "a street with no town is nowhere offline"
    assert said[5]["why"] == "the row is empty"
    assert "job" not in answer, "a synchronous batch needs no job"
    batch = outcome.envelope["data"]["batch"]
    assert batch["q"] == "MUAUEM" and len(batch["details"]) == 6
    assert answer["data_source"].startswith("offline demo data")
    guessed = assert_model_text(in_nl, TOOL)["need_attention"][0]
    assert guessed["status"] == "low confidence" and guessed["input"] == "Hoofdstraat 12"


async def test_a_long_batch_answers_with_its_job_whose_pages_hold_every_row() -> None:
    streets = ["Damrak", "Rokin", "Spui", "Kalverstraat", "Singel"] * 50
    rows = [f"{street} {i}, Amsterdam" for i, street in enumerate(streets)]
    async with tool_client(budget=10_000, page_chars=10_000) as tools:
        outcome = await tools.call(TOOL, {"addresses": rows})
        answer = assert_model_text(outcome, TOOL)
        job = answer["job"]
        assert answer["rows"] == 250 and answer["matched"] == 250
        assert outcome.meta[JOB_KEY]["state"] == "done" and outcome.meta[JOB_KEY]["handle"] == job
        bounds = outcome.envelope["data"]["batch"]["pages"]
        assert bounds[0] == 0 and bounds[-1] == 250 and len(bounds) > 2
        addresses = []
        for start, stop in itertools.pairwise(bounds):
            page = await tools.call(
                "tomtom-resume-job", {"job": job, "page": {"from": start, "to": stop}}
            )
            assert page.meta[BATCH_PAGE_KEY] == {"from": start, "to": stop, "rows": 250}
            details = fitting.decode(page.meta[APP_DATA_KEY])["data"]["batch"]["details"]
            addresses += [d["address"] for d in details]
    assert len(addresses) == 250 and all("Amsterdam" in a for a in addresses)


async def test_a_batch_tomtom_has_not_finished_is_resumed_by_its_job_on_another_replica() -> None:
    shared = upstream(seconds=1.0)
    rows = [f"Kerkstraat {i}, Amsterdam" for i in range(120)]
    async with tool_client(
        transport=shared, call_deadline_s=5, tile_token_secrets=(TILE_SECRET,)
    ) as first:
        started = await first.call(TOOL, {"addresses": rows})
    answer = assert_model_text(started, TOOL)
    assert answer["state"] == "running" and "tomtom-job-result" in answer["next"]
    assert started.meta[JOB_KEY]["state"] == "running" and APP_DATA_KEY not in started.meta
    async with tool_client(transport=shared, tile_token_secrets=(TILE_SECRET,)) as second:
        done = await second.call("tomtom-job-result", {"job": answer["job"]})
    result = assert_model_text(done, TOOL)
    assert result["rows"] == 120 and result["matched"] == 120
    assert (
        len(fitting.to_geojson(done.envelope["data"]["features"][0]["geometry"])["coordinates"])
        == 120
    )


async def test_a_job_opens_only_under_the_same_secret_and_the_same_upstream() -> None:
    shared = upstream()
    rows = [f"Weg {i}, Utrecht" for i in range(101)]
    async with tool_client(transport=shared, tile_token_secrets=(TILE_SECRET,)) as one:
        job = (await one.call(TOOL, {"addresses": rows})).answer["job"]
    other = ("another-deployments-secret-0123456789abcdef",)
    async with tool_client(transport=shared, tile_token_secrets=other) as elsewhere:
        refused = await elsewhere.call("tomtom-job-result", {"job": job})
    assert refused.is_error and "invalid job handle" in refused.text
    async with tool_client(
        transport=shared, key="a-key-0123456789", tile_token_secrets=(TILE_SECRET,)
    ) as keyed:
        refused = await keyed.call("tomtom-job-result", {"job": job})
    assert refused.is_error and "ran on the offline demo upstream" in refused.text
    async with tool_client(transport=shared, tile_token_secrets=(TILE_SECRET,)) as same:
        altered = await same.call(
            "tomtom-job-result", {"job": job[:-4] + ("AAAA" if job[-4:] != "AAAA" else "BBBB")}
        )
    assert altered.is_error and "invalid job handle" in altered.text
    assert job not in altered.text, "a refusal never repeats the handle"


async def test_a_job_is_resumed_only_by_the_user_who_started_it() -> None:
    shared = upstream()
    rows = [f"Laan {i}, Utrecht" for i in range(101)]
    settings = {"oauth_issuer": ISSUER, "public_url": "https://maps.example.test/mcp"}
    async with tool_client(
        transport=shared, tile_token_secrets=(TILE_SECRET,), **settings
    ) as tools:
        with signed_in_as("erin"):
            job = (await tools.call(TOOL, {"addresses": rows})).answer["job"]
        with signed_in_as("frank"):
            refused = await tools.call("tomtom-job-result", {"job": job})
        with signed_in_as("erin"):
            again = await tools.call("tomtom-job-result", {"job": job})
    assert refused.is_error and "started by another user" in refused.text
    assert not again.is_error and again.answer["rows"] == 101


async def test_a_batch_of_a_signed_in_user_counts_each_row_against_their_budget() -> None:
    settings = {
        "oauth_issuer": ISSUER,
        "public_url": "https://maps.example.test/mcp",
        "user_quota_per_min": 50,
        "tile_token_secrets": (TILE_SECRET,),
    }
    async with tool_client(key="a-key-0123456789", **settings) as tools:
        with signed_in_as("gail"):
            refused = await tools.call(TOOL, {"addresses": [f"Weg {i}" for i in range(60)]})
            served = await tools.call(TOOL, {"addresses": [f"Weg {i}" for i in range(40)]})
    assert refused.is_error and "more than your whole budget of 50 per minute" in refused.text
    assert not served.is_error


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        (
            {"addresses": ["a"], "data_url": "https://example.com/a.csv"},
            "give exactly one of addresses",
        ),
        ({"addresses": ["a"], "column": "address"}, "column and header describe a data_url file"),
        ({"addresses": ["x"] * 10_001}, "addresses: give at most 10000 items, got 10001"),
        ({"addresses": ["", " "]}, "addresses: every row is empty"),
        ({"addresses": ["a" * 480 + ", " + "b" * 10, "x" * 501]}, "at most 500 characters"),
        ({"addresses": [""] * 61 + ["Weg 1"] * 101}, "61 rows are empty"),
    ],
)
async def test_a_batch_that_cannot_be_sent_is_refused_in_plain_words(
    arguments: dict, said: str
) -> None:
    async with tool_client() as tools:
        outcome = await tools.call(TOOL, arguments)
    assert outcome.is_error and said in outcome.text, outcome.text


FILES = {
    "/people.csv": (
        b"name;address;city\r\nAda;Damrak 1;Amsterdam\r\nBob;;\r\nCy;Hoofdstraat 12;\r\n"
    ),
    "/lines.txt": b"Damrak 1, Amsterdam\nLisbon\n\n",
    "/shops.csv": b"shop,street,town\nBakery,Damrak 1,Amsterdam\n",
}


@pytest.fixture(scope="module")
def files_url() -> Iterator[str]:
    with files_served(FILES, {"csv": "text/csv", "txt": "text/plain"}) as url:
        yield url


async def test_a_csv_file_is_geocoded_by_the_columns_named_joined(files_url: str) -> None:
    arguments = {
        "data_url": f"{files_url}/people.csv",
        "column": ["address", "city"],
        "countrySet": "NL",
    }
    async with tool_client(data_viz_allow_private=True) as tools:
        outcome = await tools.call(TOOL, arguments)
        text = await tools.call(TOOL, {"data_url": f"{files_url}/lines.txt"})
        missing = await tools.call(
            TOOL, {"data_url": f"{files_url}/people.csv", "column": "adress"}
        )
        unnamed = await tools.call(TOOL, {"data_url": f"{files_url}/shops.csv", "header": True})
        by_header = await tools.call(TOOL, {"data_url": f"{files_url}/people.csv"})
    answer = assert_model_text(outcome, TOOL)
    assert (answer["rows"], answer["matched"], answer["empty"], answer["low_confidence"]) == (
        3,
        1,
        1,
        1,
    )
    assert answer["need_attention"][1]["input"] == "Hoofdstraat 12"
    assert assert_model_text(text, TOOL)["rows"] == 2
    assert (
        missing.is_error
        and "column: 'adress' is not in the file's header (name, address, city)" in missing.text
    )
    assert unnamed.is_error and "the file has 3 columns (shop, street, town)" in unnamed.text
    assert assert_model_text(by_header, TOOL)["rows"] == 3, "the column whose header says address"
