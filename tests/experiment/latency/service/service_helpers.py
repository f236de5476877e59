"""Shared by the target-service tests: a small pipeline and a JSON GET that returns errors too."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

from throttlelab.experiment.latency.service import PipelineConfig
from throttlelab.experiment.latency.service.work import CHUNK

SMALL = PipelineConfig(max_workers=2, heavy_elements=CHUNK * 4, light_elements=CHUNK, score_elements=CHUNK)


def get(url: str) -> tuple[int, dict]:
    try:
        with urllib.request.urlopen(url, timeout=30) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())
