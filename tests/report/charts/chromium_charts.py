"""Charts on a page in headless Chromium: each chart's drawn geometry read from the DOM, and its screenshot's pixels.

The page mimics a report's output area (:data:`PAGE_WIDTH` px at the 1280 px screen the browser checks use).
"""

from __future__ import annotations

import base64
import os
import shutil
import struct
import subprocess
import tempfile
import time
import zlib
from pathlib import Path

from throttlelab.report.html import browser
from throttlelab.report.html.offline import chart_html

#: Width of a report's output area at a 1280 px window (nbconvert's lab template).
PAGE_WIDTH = 1219

#: Per chart: container and SVG size, the plot frame, rule marks, axis labels and titles, rect marks with labels.
_CHART_FACTS = """(() => Array.from(document.querySelectorAll('.tl-chart')).map(el => {
  const box = r => { const b = r.getBoundingClientRect(); return {x: b.left + scrollX, y: b.top + scrollY, w: b.width, h: b.height}; };
  const svg = el.querySelector('svg');
  const frames = Array.from(el.querySelectorAll('path.background')).map(box).filter(b => b.w > 2 && b.h > 2);
  const texts = sel => Array.from(el.querySelectorAll(sel)).map(t => t.textContent);
  return {container: box(el), svg: svg ? box(svg) : null, frames: frames,
          rules: Array.from(el.querySelectorAll('[aria-roledescription="rule mark"], [aria-roledescription="errorbar"]')).map(box),
          rects: Array.from(el.querySelectorAll('[aria-roledescription="rect mark"]')).map(r => ({...box(r), label: r.getAttribute('aria-label')})),
          x_labels: texts('g[aria-label^="X-axis"] .role-axis-label text'),
          x_titles: texts('g[aria-label^="X-axis"] .role-axis-title text'),
          subtitle: texts('.role-title-subtitle text').join(' ')};
}))()"""


def chart_page(path: Path, specs: list[dict]) -> Path:
    """An HTML page drawing ``specs`` offline, one under the other, in a report-wide output area."""
    charts = "".join(f"<div style='margin:0 0 24px 0'>{chart_html(s, with_bundle=i == 0)}</div>"
                     for i, s in enumerate(specs))
    path.write_text(f"<!DOCTYPE html><html><head><title>charts</title></head><body style='margin:0'>"
                    f"<div style='width:{PAGE_WIDTH}px'>{charts}</div></body></html>")
    return path


def look(path: Path, *, settle_s: float = 30.0, then: str | None = None) -> tuple[list[dict], list[bytes]]:
    """Open ``path`` at 1280x800; per chart, its facts (see ``_CHART_FACTS``) and a PNG screenshot of it.

    ``then``: JavaScript run once every chart has drawn, a second before the charts are looked at.
    """
    import websocket

    home = tempfile.mkdtemp(prefix="tl-chromium-")
    proc = subprocess.Popen([browser.chromium_path(), *browser.FLAGS, f"--user-data-dir={home}/profile", "about:blank"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env={**os.environ, "HOME": home}, text=True)
    try:
        ws = websocket.create_connection(browser._page_target(browser._devtools_url(proc)), timeout=60,
                                         suppress_origin=True)
        cdp = browser._Cdp(ws)
        for domain in ("Page", "Runtime"):
            cdp.call(f"{domain}.enable")
        cdp.call("Emulation.setDeviceMetricsOverride", {"width": browser.VIEWPORT[0], "height": browser.VIEWPORT[1],
                                                        "deviceScaleFactor": 1, "mobile": False})
        cdp.call("Page.navigate", {"url": path.resolve().as_uri()})
        deadline = time.monotonic() + settle_s
        while time.monotonic() < deadline:
            s = cdp.evaluate("({r: document.readyState, c: document.querySelectorAll('.tl-chart').length,"
                             " d: document.querySelectorAll('.tl-chart[data-drawn]').length})") or {}
            if s.get("r") == "complete" and s.get("c") and s.get("d") == s.get("c"):
                break
            time.sleep(0.2)
        if then:
            cdp.evaluate(then)
            time.sleep(1.0)
        facts = cdp.evaluate(_CHART_FACTS) or []
        shots = []
        for f in facts:
            b = f["svg"] or f["container"]
            clip = {"x": b["x"], "y": b["y"], "width": b["w"], "height": b["h"], "scale": 1}
            data = cdp.call("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True, "clip": clip})
            shots.append(base64.b64decode(data["data"]))
        ws.close()
        return facts, shots
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        shutil.rmtree(home, ignore_errors=True)


def png_pixels(png: bytes) -> tuple[int, int, list[bytes]]:
    """``(width, height, rows)`` of an 8-bit, non-interlaced RGB or RGBA PNG; each row ``width * channels`` bytes."""
    pos, idat, width = 8, b"", 0
    while pos < len(png):
        length, kind = struct.unpack(">I4s", png[pos:pos + 8])
        body = png[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and colour in (2, 6) and interlace == 0, (depth, colour, interlace)
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw, stride, rows, prev = zlib.decompress(idat), width * channels, [], bytes(width * channels)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b, c = prev[i], prev[i - channels] if i >= channels else 0
            line[i] = (line[i] + (0, a, b, (a + b) // 2, _paeth(a, b, c))[kind]) & 0xFF
        rows.append(bytes(line))
        prev = line
    if channels == 4:  # drop alpha
        rows = [bytes(v for i, v in enumerate(r) if i % 4 != 3) for r in rows]
    return width, height, rows


def _paeth(a: int, b: int, c: int) -> int:
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else b if pb <= pc else c


def pixel(png_rows: list[bytes], x: float, y: float) -> tuple[int, int, int]:
    """RGB at ``(x, y)`` (pixels from the screenshot's top left) of :func:`png_pixels` rows."""
    row = png_rows[int(y)]
    i = 3 * int(x)
    return row[i], row[i + 1], row[i + 2]
