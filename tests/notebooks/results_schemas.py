"""JSON Schemas of the ``results.json`` of notebooks 03, 04, 07 and 08 (documented in docs/results_schema.md)."""

from __future__ import annotations

NUM = {"type": ["number", "null"]}
INTERVAL = {"type": ["object", "null"], "required": ["low", "high"],
            "properties": {"low": NUM, "high": NUM}}
RUNS = {
    "type": "object",
    "required": ["runs_analysed", "runs_excluded", "excluded_by_reason", "machine_cores", "unlimited_position"],
    "properties": {"runs_analysed": {"type": "integer"}, "runs_excluded": {"type": "integer"},
                   "excluded_by_reason": {"type": "object", "additionalProperties": {"type": "integer"}}},
}
GROUP_KEY = {"type": "object", "required": ["workload"], "properties": {"workload": {"type": "string"}}}

FIT = {
    "type": "object",
    "required": ["model", "response", "parameters", "intervals", "interval_method", "level", "aic", "aicc", "n"],
    "properties": {
        "model": {"enum": ["amdahl", "usl", "quota"]},
        "parameters": {"type": "object", "additionalProperties": {"type": "number"}},
        "intervals": {"type": "object", "additionalProperties": INTERVAL},
        "aic": {"type": "number"},
    },
}
ZONE = {
    "type": "object",
    "required": ["limits_cores", "limits", "baseline_limit_cores", "baseline", "worst_limit", "slowdown_pct",
                 "slowdown_ci_pct", "p_value"],
    "properties": {"limits_cores": {"type": "array", "items": NUM, "minItems": 1},
                   "slowdown_pct": {"type": "number"}, "slowdown_ci_pct": INTERVAL,
                   "p_value": {"type": "number", "minimum": 0, "maximum": 1}},
}
LIMIT_TEST = {
    "type": "object",
    "required": ["limit_cores", "limit", "runs", "baseline", "slowdown_pct", "slowdown_ci_pct", "p_value",
                 "p_value_raw", "p_value_holm", "verdict"],
    "properties": {"verdict": {"enum": ["dead zone", "not a dead zone", "undecided", "lowest limit"]},
                   "slowdown_ci_pct": INTERVAL},
}
DEAD_ZONES = {
    "type": "object",
    "required": ["decidable", "reason", "assumption_based", "threshold_pct", "alpha", "correction",
                 "monotone_p_value", "noise", "zones", "limits"],
    "properties": {
        "decidable": {"type": "boolean"}, "assumption_based": {"type": "boolean"},
        "correction": {"enum": ["maxt", "holm"]},
        "noise": {"type": "object", "required": ["sigma_log", "cv_pct", "df", "source"]},
        "zones": {"type": "array", "items": ZONE},
        "limits": {"type": "array", "items": LIMIT_TEST},
    },
}
RECOMMENDATION = {
    "type": "object",
    "required": ["limit_cores", "limit_label", "threads", "expected_seconds", "expected_seconds_ci", "core_seconds",
                 "reason", "avoid", "assumption_based"],
    "properties": {"expected_seconds": {"type": "number"}, "expected_seconds_ci": INTERVAL},
}
KNEE = {"type": "object", "required": ["limit_cores", "limit_label", "seconds", "best_limit_label", "best_seconds",
                                       "tolerance_pct", "excess_pct"]}

NOTEBOOK_03 = {
    "type": "object",
    "required": ["input", "runs", "parameters", "groups", "active_time"],
    "properties": {
        "runs": RUNS,
        "groups": {"type": "array", "items": {
            "type": "object",
            "required": ["group", "label", "limits", "fits", "best_fit", "knee", "dead_zones",
                         "dead_zones_with_block", "recommendation"],
            "properties": {
                "group": GROUP_KEY, "fits": {"type": "array", "items": FIT}, "knee": KNEE,
                "dead_zones": DEAD_ZONES, "dead_zones_with_block": {"oneOf": [{"type": "null"}, DEAD_ZONES]},
                "recommendation": RECOMMENDATION,
                "limits": {"type": "array", "items": {"type": "object", "required": [
                    "limit", "cpu_limit_cores", "runs", "geomean_seconds", "reserved_core_seconds"]}},
            },
        }},
        "active_time": {"oneOf": [{"type": "null"}, {
            "type": "object", "required": ["fit", "table", "slowdown_factor", "slowdown_factor_ci"],
            "properties": {"fit": {"type": "object", "required": ["slope", "slope_ci", "r_squared"]},
                           "slowdown_factor_ci": INTERVAL}}]},
    },
}

NOTEBOOK_04 = {
    "type": "object",
    "required": ["input", "runs", "parameters", "thread_comparison_possible", "groups"],
    "properties": {
        "runs": RUNS,
        "thread_comparison_possible": {"type": "boolean"},
        "groups": {"type": "array", "items": {
            "type": "object",
            "required": ["group", "label", "has_explicit_threads", "has_auto", "note", "noise", "best_threads",
                         "recommendations"],
            "properties": {
                "best_threads": {"type": "array", "items": {"type": "object", "required": [
                    "limit_cores", "limit", "best_threads", "best_seconds", "best_seconds_ci", "near_best_threads",
                    "auto_seconds", "auto_vs_best_pct", "auto_vs_best_ci_pct", "auto_vs_best_p_value"],
                    "properties": {"best_threads": {"type": ["string", "null"]},
                                   "best_seconds_ci": INTERVAL, "auto_vs_best_ci_pct": INTERVAL}}},
                "recommendations": {"type": "array", "items": {"type": "object", "required": [
                    "limit", "limit_cores", "threads", "expected_seconds", "expected_seconds_ci_low",
                    "expected_seconds_ci_high", "core_seconds"]}},
            },
        }},
    },
}

PROJECTION = {
    "type": "object",
    "required": ["variant", "units", "cpu_cores", "cpu_cores_ci", "cpu_pct_of_limit", "capacity_units",
                 "capacity_units_ci", "threshold", "limit_cores", "assumption"],
    "properties": {"cpu_cores_ci": INTERVAL, "capacity_units_ci": INTERVAL},
}
NOTEBOOK_07 = {
    "type": "object",
    "required": ["input", "parameters", "unit", "unit_costs", "projections", "comparison", "assumption"],
    "properties": {
        "unit_costs": {"type": "array", "items": {"type": "object", "required": [
            "variant", "units", "cpu_cores", "memory_bytes", "cpu_cores_per_unit", "memory_bytes_per_unit"]}},
        "projections": {"type": "array", "items": PROJECTION, "minItems": 1},
        "comparison": {"oneOf": [{"type": "null"}, {"type": "object", "required": [
            "before", "after", "cpu_change_pct", "memory_change_pct", "capacity_change_pct", "capacity_ratio"]}]},
    },
}

RIGHTSIZING = {
    "type": "object",
    "required": ["namespace", "pod", "container", "decision", "current_request_cores", "current_limit_cores",
                 "recommended_request_cores", "recommended_request_low", "recommended_request_high",
                 "recommended_limit_cores", "recommended_limit_low", "recommended_limit_high", "throttled_ratio",
                 "throttled_ratio_p95_5m", "throttled_seconds_per_hour", "usage_p50_cores", "usage_p95_cores",
                 "usage_p99_cores", "usage_max_cores", "krr_request_cores", "krr_limit_cores", "vpa_request_cores",
                 "vpa_limit_cores", "predicted_throttled_ratio", "reason"],
    "properties": {"decision": {"enum": ["raise limit", "lower limit", "keep", "set limit", "no limit (policy)",
                                         "keep (policy)", "too little data"]},
                   "recommended_limit_cores": NUM, "recommended_request_cores": NUM, "reason": {"type": "string"}},
}
NOTEBOOK_08 = {
    "type": "object",
    "required": ["input", "parameters", "recommendations"],
    "properties": {"recommendations": {"type": "array", "items": RIGHTSIZING, "minItems": 1}},
}
SCHEMAS = {"03_cpu_limits": NOTEBOOK_03, "04_thread_counts": NOTEBOOK_04, "07_capacity": NOTEBOOK_07,
           "08_recommend": NOTEBOOK_08}


def validate(doc: dict) -> None:
    """Raise ``jsonschema.ValidationError`` if a results.json document does not follow its schema."""
    import jsonschema

    assert doc["schema"] == 1 and isinstance(doc["tables"], list)
    jsonschema.validate(doc["results"], SCHEMAS[doc["notebook"]])
