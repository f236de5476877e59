"""HPA awareness: replicas an HPA asks for with today's and the recommended request."""

import doctest
import importlib

import pytest

from throttlelab.analysis.rightsizing.hpa import hpa_scaling, implied_replicas


def test_a_lower_request_raises_the_replicas_the_hpa_asks_for():
    h = hpa_scaling("api", "Resource", 0.8, 1, 50, total_usage_p95=4.0, request_now=1.0, request_new=0.5)
    assert (h.replicas_now, h.replicas_new) == (5, 10)
    assert "from 5 to 10 replicas" in h.sentence


def test_replicas_are_clamped_to_the_hpa_bounds_and_the_sentence_says_which():
    h = hpa_scaling("api", "Resource", 0.5, 3, 6, total_usage_p95=0.2, request_now=0.5, request_new=1.0)
    assert (h.replicas_now, h.replicas_new) == (3, 3)
    assert "keeps it at 3 replicas" in h.sentence
    h = hpa_scaling("api", "ContainerResource", 0.5, 1, 6, total_usage_p95=2.0, request_now=1.0, request_new=0.25)
    assert h.replicas_new == 6 and "(max 6)" in h.sentence and "of one container" in h.sentence


def test_exact_multiples_do_not_round_up_one_more():
    assert implied_replicas(2.8, 0.5, 0.7, 1, 100) == 8  # 2.8 / 0.35 = 8 exactly


def test_bad_hpa_input_is_refused_in_one_line():
    with pytest.raises(ValueError, match="expected Resource or ContainerResource"):
        hpa_scaling("x", "Pods", 0.7, 1, 2, total_usage_p95=1, request_now=1, request_new=1)
    with pytest.raises(ValueError, match="positive"):
        implied_replicas(1.0, 0.0, 0.7, 1, 3)


def test_docstring_examples_run():
    result = doctest.testmod(importlib.import_module("throttlelab.analysis.rightsizing.hpa"))
    assert result.attempted >= 5 and result.failed == 0
