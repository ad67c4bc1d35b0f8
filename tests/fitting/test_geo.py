"""The one geo module: distances on the mean sphere, destination points, Web Mercator."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tomtom_mcp_apps.fitting.geo import (
    EARTH_RADIUS_M,
    M_PER_DEG,
    M_PER_DEG_LON_EQUATOR,
    MERCATOR_MAX_LAT,
    WEB_MERCATOR_RADIUS_M,
    destination,
    haversine_m,
    mercator,
    mercator_array,
    mercator_inverse,
)

lons = st.floats(-180.0, 180.0, allow_nan=False)
lats = st.floats(-90.0, 90.0, allow_nan=False)
mercator_lats = st.floats(-MERCATOR_MAX_LAT, MERCATOR_MAX_LAT, allow_nan=False)


def unit_vector(lon: float, lat: float) -> np.ndarray:
    lam, phi = math.radians(lon), math.radians(lat)
    return np.array([math.cos(phi) * math.cos(lam), math.cos(phi) * math.sin(lam), math.sin(phi)])


def central_angle_m(lon1: float, lat1: float, lon2: float, lat2: float) -> float:
    """An independent great-circle distance: the angle between unit vectors, by atan2."""
    u, v = unit_vector(lon1, lat1), unit_vector(lon2, lat2)
    return EARTH_RADIUS_M * math.atan2(float(np.linalg.norm(np.cross(u, v))), float(u @ v))


def test_the_two_radii_are_the_mean_earth_and_the_wgs84_semi_major_axis() -> None:
    assert EARTH_RADIUS_M == 6_371_008.8
    assert WEB_MERCATOR_RADIUS_M == 6_378_137.0
    assert round(M_PER_DEG, 2) == 111_195.08


def test_the_views_draw_circles_with_the_servers_degree_length() -> None:
    earth_js = Path(__file__).resolve().parents[2] / "widgets" / "core" / "earth.js"
    assert f"M_PER_DEG_LON_EQUATOR = {M_PER_DEG_LON_EQUATOR:.0f};" in earth_js.read_text()


def test_haversine_matches_the_published_nashville_to_los_angeles_distance() -> None:
    # Rosetta Code's haversine task: BNA to LAX is 2887.2599506071106 km on a 6372.8 km sphere.
    on_their_sphere = haversine_m(-86.67, 36.12, -118.40, 33.94) * 6_372_800.0 / EARTH_RADIUS_M
    assert on_their_sphere == pytest.approx(2_887_259.9506071106, rel=1e-12)


def test_haversine_measures_meridians_the_equator_and_the_antipode_in_whole_degrees() -> None:
    assert haversine_m(5.0, 52.0, 5.0, 53.0) == pytest.approx(M_PER_DEG, rel=1e-12)
    assert haversine_m(0.0, 0.0, 1.0, 0.0) == pytest.approx(M_PER_DEG, rel=1e-12)
    assert haversine_m(0.0, 0.0, 0.0, 90.0) == pytest.approx(90 * M_PER_DEG, rel=1e-12)
    assert haversine_m(0.0, 0.0, 180.0, 0.0) == pytest.approx(math.pi * EARTH_RADIUS_M, rel=1e-12)


def test_haversine_crosses_the_antimeridian_the_short_way_and_a_pole_has_no_longitude() -> None:
    assert haversine_m(179.5, 10.0, -179.5, 10.0) == pytest.approx(
        haversine_m(-0.5, 10.0, 0.5, 10.0), rel=1e-9
    )
    assert haversine_m(0.0, 90.0, 123.0, 90.0) < 1e-6
    assert haversine_m(-45.0, -90.0, 170.0, -89.0) == pytest.approx(M_PER_DEG, rel=1e-9)


def test_haversine_broadcasts_over_arrays() -> None:
    lon = np.array([0.0, 1.0, 2.0])
    lat = np.zeros(3)
    steps = haversine_m(lon[:-1], lat[:-1], lon[1:], lat[1:])
    assert steps.shape == (2,)
    assert steps == pytest.approx([M_PER_DEG, M_PER_DEG], rel=1e-12)


@settings(deadline=None, max_examples=300)
@given(lons, lats, lons, lats)
@example(179.9, 0.0, -179.9, 0.0)  # across the antimeridian
@example(0.0, 90.0, 0.0, -90.0)  # pole to pole
@example(10.0, 45.0, 10.0, 45.0)  # the same point
@example(6.103515625e-05, 0.0, 180.0, 6.103515625e-05)  # nearly antipodal
def test_haversine_agrees_with_the_angle_between_unit_vectors(
    lon1: float, lat1: float, lon2: float, lat2: float
) -> None:
    # A millimetre, and a decimetre near the antipode: there the arcsine of a sine close to 1
    # turns the last bit of the sine into ~R * sqrt(2e-16), about 0.1 m.
    expected = central_angle_m(lon1, lat1, lon2, lat2)
    near_antipode = expected > math.pi * EARTH_RADIUS_M - 100_000
    assert haversine_m(lon1, lat1, lon2, lat2) == pytest.approx(
        expected, abs=0.2 if near_antipode else 1e-3
    )


def test_destination_walks_along_meridians_and_the_equator() -> None:
    lon, lat = destination(5.0, 52.0, M_PER_DEG, 0.0)
    assert (lon, lat) == (pytest.approx(5.0, abs=1e-12), pytest.approx(53.0, abs=1e-12))
    lon, lat = destination(5.0, 0.0, 2 * M_PER_DEG, math.pi / 2)
    assert (lon, lat) == (pytest.approx(7.0, abs=1e-12), pytest.approx(0.0, abs=1e-12))


def test_destination_crosses_the_antimeridian_and_the_pole_into_valid_longitudes() -> None:
    lon, lat = destination(179.9, 0.0, 0.2 * M_PER_DEG, math.pi / 2)
    assert (lon, lat) == (pytest.approx(-179.9, abs=1e-9), pytest.approx(0.0, abs=1e-9))
    lon, lat = destination(10.0, 89.0, 2 * M_PER_DEG, 0.0)  # over the North Pole
    assert (lon, lat) == (pytest.approx(-170.0, abs=1e-9), pytest.approx(89.0, abs=1e-9))
    _, lat = destination(0.0, -90.0, M_PER_DEG, 1.0)  # every way from the South Pole is north
    assert lat == pytest.approx(-89.0, abs=1e-9)


def test_destination_draws_a_ring_of_bearings_at_one_distance() -> None:
    bearing = np.linspace(0, 2 * np.pi, 65)
    lon, lat = destination(4.9, 52.37, 1500.0, bearing)
    assert lon.shape == lat.shape == (65,)
    assert haversine_m(4.9, 52.37, lon, lat) == pytest.approx(np.full(65, 1500.0), rel=1e-9)
    assert lon[0] == pytest.approx(lon[-1], abs=1e-12) and lat[0] == pytest.approx(lat[-1])


@settings(deadline=None, max_examples=300)
@given(
    lons,
    st.floats(-89.0, 89.0, allow_nan=False),
    st.floats(0.0, 0.9 * math.pi * EARTH_RADIUS_M, allow_nan=False),
    st.floats(0.0, 2 * math.pi, allow_nan=False),
)
@example(180.0, 0.0, 1000.0, math.pi / 2)  # starting on the antimeridian, eastwards
@example(0.0, 89.0, 500_000.0, 0.0)  # over the pole
@example(0.0, 0.0, 0.0, 1.0)  # nowhere
def test_destination_lies_its_distance_away_by_haversine_with_a_valid_longitude(
    lon: float, lat: float, distance: float, bearing: float
) -> None:
    lon2, lat2 = destination(lon, lat, distance, bearing)
    assert -180.0 <= lon2 < 180.0 and -90.0 <= lat2 <= 90.0
    assert haversine_m(lon, lat, lon2, lat2) == pytest.approx(distance, abs=1e-3)


def test_mercator_puts_null_island_mid_world_and_the_bound_latitude_on_its_edges() -> None:
    assert mercator(0.0, 0.0) == (0.5, 0.5)
    assert mercator(-180.0, MERCATOR_MAX_LAT) == (0.0, pytest.approx(0.0, abs=1e-9))
    assert mercator(180.0, -MERCATOR_MAX_LAT) == (1.0, pytest.approx(1.0, abs=1e-9))


def test_mercator_world_widths_scale_to_epsg_3857_metres_on_the_wgs84_sphere() -> None:
    # EPSG:3857 spans +-20,037,508.34 m both ways: the bound latitude is where y meets it.
    half_world = math.pi * WEB_MERCATOR_RADIUS_M
    assert half_world == pytest.approx(20_037_508.342789244, abs=1e-6)
    x, y = mercator(180.0, MERCATOR_MAX_LAT)
    assert (x - 0.5) * 2 * half_world == pytest.approx(half_world, abs=1e-6)
    assert (0.5 - y) * 2 * half_world == pytest.approx(half_world, abs=1.0)


def test_mercator_clamps_the_poles_to_the_bound_latitude() -> None:
    assert mercator(10.0, 90.0) == mercator(10.0, MERCATOR_MAX_LAT)
    assert mercator(10.0, -90.0) == mercator(10.0, -MERCATOR_MAX_LAT)
    poles = mercator_array(np.array([[10.0, 90.0], [10.0, -90.0]]))
    assert poles[:, 1] == pytest.approx([0.0, 1.0], abs=1e-9)


@pytest.mark.parametrize(
    ("lon", "lat", "z", "tile"),
    [
        (4.9041, 52.3676, 10, (525, 336)),  # Amsterdam
        (151.2153, -33.8568, 12, (3768, 2457)),  # Sydney Opera House
        (-90.0, 45.0, 1, (0, 0)),
        (90.0, -45.0, 1, (1, 1)),
        (-180.0, MERCATOR_MAX_LAT - 1e-6, 22, (0, 0)),
    ],
)
def test_mercator_times_the_grid_side_names_the_slippy_map_tile(
    lon: float, lat: float, z: int, tile: tuple[int, int]
) -> None:
    x, y = mercator(lon, lat)
    assert (math.floor(x * 2**z), math.floor(y * 2**z)) == tile


@settings(deadline=None, max_examples=300)
@given(st.floats(-179.999, 179.999, allow_nan=False), mercator_lats, st.integers(0, 22))
def test_mercator_tiles_agree_with_the_openstreetmap_wiki_formula(
    lon: float, lat: float, z: int
) -> None:
    n = 2**z
    x, y = mercator(lon, lat)
    fx, fy = x * n, y * n
    # The wiki's form: ytile = (1 - asinh(tan(lat)) / pi) / 2 * n, an independent route.
    wiki_x = (lon + 180.0) / 360.0 * n
    wiki_y = (1.0 - math.asinh(math.tan(math.radians(lat))) / math.pi) / 2.0 * n
    assert fx == pytest.approx(wiki_x, rel=1e-12, abs=1e-9)
    assert fy == pytest.approx(wiki_y, rel=1e-9, abs=1e-6)


@settings(deadline=None, max_examples=300)
@given(lons, mercator_lats)
@example(-180.0, 0.0)
@example(180.0, MERCATOR_MAX_LAT)
@example(0.0, -MERCATOR_MAX_LAT)
def test_mercator_inverse_undoes_mercator(lon: float, lat: float) -> None:
    back = mercator_inverse(*mercator(lon, lat))
    assert back == (pytest.approx(lon, abs=1e-9), pytest.approx(lat, abs=1e-9))


def test_mercator_inverse_goes_past_the_antimeridian_for_a_frame_that_crosses_it() -> None:
    assert mercator_inverse(1.25, 0.5) == (270.0, 0.0)
    assert mercator_inverse(-0.25, 0.5) == (-270.0, 0.0)


@settings(deadline=None, max_examples=100)
@given(st.lists(st.tuples(lons, lats), min_size=1, max_size=20))
def test_mercator_array_is_mercator_row_by_row(rows: list[tuple[float, float]]) -> None:
    projected = mercator_array(np.array(rows, dtype=np.float64))
    for (lon, lat), (x, y) in zip(rows, projected, strict=True):
        # x by the same operations; y by numpy's log and tan, which may differ from libm's in
        # the last bit.
        assert mercator(lon, lat) == (x, pytest.approx(y, abs=1e-15))
