"""The capacity answer: the last variant's capacity under the threshold against the first's, 40 plain words."""

from throttlelab.analysis.capacity.capacity import compare_variants, project_capacity, unit_costs
from throttlelab.ingest.published.published import load_mediamtx
from throttlelab.report.answers.answer_text import lead_problems
from throttlelab.report.answers.capacity_answer import capacity_answer


def answer(both: bool = True):
    costs = unit_costs(load_mediamtx(None), unit_col="streams")
    costs = costs if both else costs[-1:]
    projections = [project_capacity(c, units=100, n_sim=2000) for c in costs]
    comparison = compare_variants(projections[0], projections[-1], costs[0], costs[-1]) if both else None
    return capacity_answer(costs, projections, comparison, unit="stream")


def test_capacity_of_the_optimised_variant_against_the_first():
    a = answer()
    assert a.lead.startswith("Plan 135 streams on 1 core with tobe: CPU stays under 70%, 1.37 times asis's capacity "
                             "(27% less CPU per stream).")
    assert "How sure: one measured load per variant" in a.lead and "not yet clear" in a.lead
    assert lead_problems(a.lead) == []
    assert len(a.headlines) == 3 and a.headlines[-1].startswith("tobe vs asis: CPU per stream -27%")
    assert "asis: 64 streams, tobe: 64 streams" in a.rests_on


def test_one_variant_has_no_comparison():
    a = answer(both=False)
    assert a.lead.startswith("Plan 135 streams on 1 core with tobe: CPU stays under 70%.") and len(a.headlines) == 1
