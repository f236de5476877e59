#!/usr/bin/env python3
"""Simulation battery of the statistics: false-alarm rate, power and interval coverage on messy data, with goals.

Scenarios per analysis (dead zones; the two-stage run-level comparison behind the latency, neighbour and
concurrency verdicts; order-statistic quantile intervals; profile-likelihood fits; auto against the best thread
count): equal noise, noise growing with the limit (log-linear, linear, a step), one run per level, outlying runs,
heavy-tailed run effects, small n, several experiments as blocks, and alternatives.  Each row prints its generator
settings beside its figures (``throttlelab.analysis.batteries.stats_battery``, its rows in ``verdict_battery``
and its scenarios in ``battery_scenarios``).

Thread counts (``throttlelab.analysis.batteries.thread_count_battery``): whole null sweeps (8 limits x threads 1,
2, 4, 8, 16 and auto; noise growing 3% -> 25%, with outlying runs, t3 tails, sparse replicates, other noise shapes) analysed
as notebook 04 uses them, the share of sweeps that claim anything anywhere (a count slower than the best, auto
different from the best, an advice verdict, the headline), for the sweep-wide family (now) and a family per limit
(earlier), beside the power for a real +20% effect of one thread count.

Goals (a missed goal makes the exit code 1; a figure misses when it is more than 2 Monte-Carlo s.e. on the wrong
side): a null scenario claims in at most 5% of studies; 95% intervals cover at least 90%; a +30% dead zone (3 runs
per limit, constant 5% noise) is found at least 90% of the time, 75% with an outlying run; a +20% slower thread count (3 runs, 5%
noise) is called slower at 80% of limits or more.  A null scenario where the procedure always answers "too few to
decide" is listed apart: it has no false-alarm rate to average.

Latency intervals on requests pooled across runs (``throttlelab.analysis.batteries.pooled_quantile_battery``):
coverage of the configuration's mean/p50/p95/p99 with 3 runs x 300 lognormal requests and 10% run noise, with 5 runs of t3-tailed
requests, with 2 runs (goal >= 90% each), and, reported only, 25% run noise, 100 requests per run and one run.  The
script exits 1 when one of these goals is missed.

Run: ``python bench/bench_stats.py [reps] [--sweep-reps N] [--parts a,b]`` (see ``--help``; default 400 simulated
studies per dead-zone scenario, 2000 per comparison scenario, reps/2 per thread-count scenario; about half an hour
on 2 cores).
"""

from __future__ import annotations

import argparse
import sys
import time

import polars as pl

from throttlelab.analysis.batteries import (
    COVERAGE_GOAL, THREAD_METHODS, battery, goal_missed, missed_goals, pooled_rows, thread_count_rows,
    thread_goal_missed
)


PARTS = ("dead", "compare", "threads", "fits", "quantile", "sweeps", "pooled")


def parse(argv: list[str]) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0], epilog="Exit code 1 when a goal is missed.")
    ap.add_argument("reps", nargs="?", type=int, default=400,
                    help="simulated studies per dead-zone / quantile scenario (comparisons 5x; default 400)")
    ap.add_argument("--sweep-reps", type=int, default=None,
                    help="simulated thread sweeps per thread-count scenario (default reps/2, at least 20)")
    ap.add_argument("--parts", default=",".join(PARTS),
                    help="comma-separated parts to run (default all): dead (dead zones), compare (run-level "
                         "comparisons), threads (auto against the best at one limit), fits (profile intervals), "
                         "quantile (order-statistic intervals), sweeps (whole thread-count sweeps), pooled (latency "
                         "intervals on requests pooled across runs)")
    args = ap.parse_args(argv)
    args.parts = tuple(p.strip() for p in args.parts.split(",") if p.strip())
    if unknown := set(args.parts) - set(PARTS):
        ap.error(f"unknown part(s) {', '.join(sorted(unknown))}; expected some of {', '.join(PARTS)}")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse(sys.argv[1:] if argv is None else argv)
    reps = args.reps
    t0 = time.perf_counter()
    print(f"settings: reps={reps} (dead zones, quantiles), {5 * reps} (comparisons); n_sim=1000; seed=0; comparisons: "
          f"100 requests per run, lognormal sd 0.5 within runs; dead zones: see each row; parts: {','.join(args.parts)}")
    which = tuple(p for p in args.parts if p in ("dead", "compare", "threads", "fits", "quantile"))
    table = battery(reps=reps, seed=0, n_sim=1000, which=which) if which else pl.DataFrame()
    missed, too_few = [], []
    for r in table.iter_rows(named=True):
        what = "false alarm" if r["false_alarm"] is not None else "power" if r["power"] is not None else ""
        rate = r["false_alarm"] if r["false_alarm"] is not None else r["power"]
        parts = [f"{what} {rate:.3f} (MC s.e. {r['mc_se']:.3f})" if what else ""]
        if r["coverage"] is not None:
            parts.append(f"coverage {r['coverage']:.3f} (s.e. {r['coverage_se']:.3f})")
        if r["too_few_to_decide"]:
            parts.append(f"too few to decide {r['too_few_to_decide']:.3f}")
        old = next((r[c] for c in ("request_level_mann_whitney_rejects", "bootstrap_percentile_coverage",
                                   "naive_best_of_many_rejects") if r.get(c) is not None), None)
        if old is not None:
            parts.append(f"earlier method {old:.3f}")
        settings = r.get("settings") or f"{r['reps']} studies"
        print(f"- {r['analysis']}: {r['scenario']}  [settings: {settings}]\n    " + "; ".join(p for p in parts if p))
        if r["false_alarm"] is not None and r["too_few_to_decide"] == 1.0:
            too_few.append(f"{r['analysis']}: {r['scenario']}")
            continue
        why = goal_missed(r)
        if why:
            missed.append(f"{r['analysis']}: {r['scenario']}: {why}")
    print("earlier method: request-level Mann-Whitney rejection rate; residual-bootstrap percentile coverage; naive "
          f"best-of-many t-test rejection rate; {time.perf_counter() - t0:.0f} s")
    if "sweeps" in args.parts:
        rows, thread_missed, thread_too_few = thread_table(args.sweep_reps or max(reps // 2, 20))
        missed += thread_missed
        too_few += thread_too_few
    print("\nnull scenarios that always answer 'too few to decide' (no false-alarm rate): "
          + ("; ".join(too_few) or "none"))
    if "pooled" in args.parts:
        missed += [f"pooled requests: {m}" for m in pooled_quantile_table(reps)]
    print(f"goals missed: {len(missed)}" + "".join(f"\n  - {m}" for m in missed))
    return 1 if missed else 0


def thread_table(reps: int) -> tuple[pl.DataFrame, list[str], list[str]]:
    """The thread-count scenarios: sweep-wide family against a family per limit, with the generator's settings."""
    t0 = time.perf_counter()
    rows = pl.DataFrame(thread_count_rows(reps, 1000, n_sim=2000), infer_schema_length=None)
    print(f"\nthread counts: {reps} simulated sweeps per scenario, each analysed as the report uses it; 'claims' = "
          "share of sweeps with any false claim anywhere (a count slower than the best, auto different from the "
          "best, an advice verdict, the headline); 'power' = share of limits (and of sweeps) at which the slower "
          "count is called slower; 'headline covers' = the headline limit's interval covers the truth")
    missed, too_few = [], []
    for r in rows.iter_rows(named=True):
        print(f"- {r['scenario']}  [settings: {r['settings']}; goal: {r['goal'] or 'reported'}]")
        for m, name in THREAD_METHODS.items():
            power = ("" if r[f"found_per_limit_{m}"] is None else
                     f"; power {r[f'found_per_limit_{m}']:.3f} per limit, {r[f'found_any_{m}']:.3f} per sweep")
            if r[f"auto_found_per_limit_{m}"] is not None:
                power += f"; auto found {r[f'auto_found_per_limit_{m}']:.3f} per limit"
            cover = r[f"headline_covers_{m}"]
            print(f"    {name:34s} claims {r[f'false_claim_{m}']:.3f} (count {r[f'false_near_{m}']:.3f}, auto "
                  f"{r[f'false_auto_{m}']:.3f}, advice {r[f'false_advice_{m}']:.3f}, headline "
                  f"{r[f'false_headline_{m}']:.3f}){power}"
                  + ("" if cover is None else f"; headline covers {cover:.3f}")
                  + (f"; too few to decide {r[f'too_few_{m}']:.3f}" if r[f"too_few_{m}"] else ""))
        if r["too_few_sweep"] == 1.0:
            too_few.append(f"thread counts: {r['scenario']}")
        elif why := thread_goal_missed(r):
            missed.append(f"thread counts: {r['scenario']}: {why}")
    if rows.height:
        print(f"MC s.e. of a 5% rate at {reps} sweeps: {float(rows['mc_se'][0]):.3f}; {time.perf_counter() - t0:.0f} s")
    return rows, missed, too_few


def pooled_quantile_table(reps: int) -> list[str]:
    """Latency intervals on requests pooled across runs: coverage of the configuration's value per scenario and
    statistic, with the generator's settings; the goals (coverage >= 90%) missed."""
    t0 = time.perf_counter()
    rows = pooled_rows(reps, seed=2000)
    print(f"\nlatency intervals on requests pooled across runs: {reps} simulated studies per scenario, seeds 2000+; "
          "truth = the configuration's value (request times mixed over 200,000 simulated run effects); cover = 95% "
          "interval covers it (MC s.e.); width = mean (high - low) / truth; none = share without an interval; "
          "previous = order statistics (mean: request bootstrap) on the pooled requests")
    for name in dict.fromkeys(r["scenario"] for r in rows):
        part = [r for r in rows if r["scenario"] == name]
        goal = f"goal cover >= {COVERAGE_GOAL:.0%}" if part[0]["goal"] else "no goal, reported"
        print(f"- {name}  [settings: {part[0]['settings']}; {goal}]")
        for r in part:
            width = "-" if r["mean_relative_width"] is None else f"{r['mean_relative_width']:.2f}"
            print(f"    {r['stat']:5s} cover {r['coverage']:.3f} ({r['coverage_se']:.3f}); width {width}; none "
                  f"{r['no_interval']:.3f}; previous {r['previous_coverage']:.3f}"
                  + ("  MISSED" if r["passed"] is False else ""))
    missed = missed_goals(rows)
    print(f"pooled-request goals missed: {len(missed)}" + "".join(f"\n  {m}" for m in missed)
          + f"; {time.perf_counter() - t0:.0f} s")
    return missed


if __name__ == "__main__":
    sys.exit(main())
