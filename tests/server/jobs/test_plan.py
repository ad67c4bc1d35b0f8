"""Plans: scheduled from the matrix, checked without the solver, and solved by PyVRP."""

from __future__ import annotations

import dataclasses

import pytest

from benchmarks.solomon import load
from tomtom_mcp_apps.server.jobs import (
    PlanProblem,
    PlanStop,
    PlanVehicle,
    schedule,
    solve_plan,
    violations,
)

# Four places on a line, 10 minutes apart: 0 is the depot.
MINUTES = [[abs(i - j) * 600 for j in range(4)] for i in range(4)]
METRES = [[abs(i - j) * 8000 for j in range(4)] for i in range(4)]


def line(
    *, windows: dict[int, tuple[int, int]] | None = None, capacity: int | None = None
) -> PlanProblem:
    windows = windows or {}
    stops = tuple(
        PlanStop(location=i, service_s=300, window=windows.get(i), demand=4) for i in (1, 2, 3)
    )
    vehicles = (PlanVehicle(start=0, end=0, shift=(0, 4 * 3600), capacity=capacity),) * 2
    return PlanProblem(
        tuple(map(tuple, MINUTES)), tuple(map(tuple, METRES)), stops, vehicles, "time"
    )


def test_a_route_is_timed_from_the_matrix_with_service_and_waiting() -> None:
    problem = line(windows={1: (3600, 7200)})
    plan = schedule(problem, [[0, 1, 2], []])
    route = plan.routes[0]
    # It leaves late enough to reach stop 0 as its window opens, then drives 10 min a leg.
    assert route.departure == 3000
    assert route.arrivals == (3600, 3600 + 300 + 600, 3600 + 2 * 900)
    assert route.driving_s == 6 * 600 and route.length_m == 6 * 8000 and route.load == 12
    assert violations(problem, plan) == []


def test_the_check_names_every_rule_a_plan_breaks() -> None:
    problem = line(windows={2: (0, 900)}, capacity=8)
    plan = schedule(problem, [[0, 1, 2], []])
    found = violations(problem, plan)
    assert "vehicle 0 reaches stop 1 after its window closes" in found  # at location 2
    assert "vehicle 0 carries 12, over its capacity of 8" in found


def test_the_check_catches_a_stop_served_twice_or_forgotten_and_doctored_times() -> None:
    problem = line()
    twice = dataclasses.replace(schedule(problem, [[0, 1], [1]]), unassigned=())
    assert "stop 1 served by vehicles 0 and 1" in violations(problem, twice)
    assert "stop 2 neither served nor reported unassigned" in violations(problem, twice)
    plan = schedule(problem, [[0, 1, 2], []])
    early = dataclasses.replace(plan.routes[0], arrivals=(0, 0, 0))
    doctored = dataclasses.replace(plan, routes=(early,))
    assert "vehicle 0 arrives at stop 0 before the driving allows" in violations(problem, doctored)


def test_a_leg_without_a_route_is_never_driven() -> None:
    problem = line()
    rows = [list(r) for r in problem.durations]
    rows[1][2] = None
    cut = dataclasses.replace(problem, durations=tuple(map(tuple, rows)))
    plan = schedule(cut, [[0, 1, 2], []])
    assert "vehicle 0 drives a leg with no route to stop 1" in violations(cut, plan)


def test_solomons_rc208_reference_is_feasible_and_its_best_known_total() -> None:
    rc208 = load("RC208")
    assert violations(rc208.problem, rc208.best_plan) == []
    assert rc208.best_known == pytest.approx(776.1)


@pytest.mark.process
def test_pyvrp_plans_rc208_feasibly_within_a_few_percent_of_best_known() -> None:
    rc208 = load("RC208")
    plan = solve_plan(rc208.problem, 2.0)
    assert violations(rc208.problem, plan) == []
    assert plan.unassigned == ()
    assert plan.length_m / 10 <= rc208.best_known * 1.06


@pytest.mark.process
def test_pyvrp_leaves_out_a_stop_it_is_told_cannot_be_served() -> None:
    problem = line()
    plan = solve_plan(problem, 0.5, skip=frozenset({1}))
    assert plan.unassigned == (1,)
    assert violations(problem, plan) == []


@pytest.mark.process
def test_when_not_every_stop_fits_the_optional_one_gives_way() -> None:
    problem = line(capacity=4)  # two vehicles of 4 for three stops of 4: one stays behind
    nearest = dataclasses.replace(problem.stops[0], optional=True)
    problem = dataclasses.replace(problem, stops=(nearest, *problem.stops[1:]))
    plan = solve_plan(problem, 0.5)
    assert plan.unassigned == (0,)
    assert violations(problem, plan) == []
