"""Sweep spec mappings shared by the sweep tests."""

BASE = {
    "name": "t",
    "workload": {"kind": "burner", "cpu_seconds": 0.2},
    "limits": [0.5, "1500m", "unlimited"],
    "threads": [1, "auto"],
    "replicates": 2,
}
