"""Open a report in headless Chromium and check that it really renders offline.

Chromium is driven over the DevTools protocol (``websocket-client``): every
network request, console error and uncaught exception is recorded, and after
the page settles the number of ``.tl-chart`` containers and of charts vega drew
(``data-drawn``) is read from the page.  Requests to anything but ``file:``,
``data:`` and ``blob:`` URLs count as network requests; Chromium's own host
resolver is pointed nowhere so none can leave the machine.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-default-apps", "--disable-extensions", "--mute-audio",
    "--host-resolver-rules=MAP * ~NOTFOUND", "--remote-debugging-port=0",
]
LOCAL_SCHEMES = ("file:", "data:", "blob:", "about:", "chrome:", "devtools:")


@dataclass(frozen=True)
class RenderCheck:
    """What a page did in headless Chromium."""

    url: str
    charts: int
    drawn: int
    chart_errors: tuple[str, ...]
    console_errors: tuple[str, ...]
    network_requests: tuple[str, ...]
    title: str = ""
    screenshot: Path | None = None
    extra: dict = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.drawn == self.charts and not (self.chart_errors or self.console_errors or self.network_requests)


def chromium_path() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if path := shutil.which(name):
            return path
    return None


def check_page(path: Path, *, settle_s: float = 20.0, screenshot: Path | None = None,
               expression: str | None = None) -> RenderCheck:
    """Load ``path`` in headless Chromium and report charts, errors and requests.

    Parameters
    ----------
    path
        HTML file to open.
    settle_s
        Most time to wait for every chart to be drawn.
    screenshot
        Write a PNG screenshot of the page there.
    expression
        Optional JavaScript expression whose JSON value is returned in ``extra``.
    """
    return check_pages([path], settle_s=settle_s, screenshots=[screenshot], expression=expression)[0]


def check_pages(paths: list[Path], *, settle_s: float = 20.0, screenshots: list[Path | None] | None = None,
                expression: str | None = None) -> list[RenderCheck]:
    """Like :func:`check_page` for several pages, in one Chromium."""
    import websocket

    exe = chromium_path()
    if exe is None:
        raise RuntimeError("chromium not found (make system-tools installs it)")
    screenshots = screenshots or [None] * len(paths)
    home = tempfile.mkdtemp(prefix="tl-chromium-")
    env = {**os.environ, "HOME": home}
    proc = subprocess.Popen([exe, *FLAGS, f"--user-data-dir={home}/profile", "about:blank"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, text=True)
    try:
        ws = websocket.create_connection(_page_target(_devtools_url(proc)), timeout=30, suppress_origin=True)
        cdp = _Cdp(ws)
        for domain in ("Page", "Runtime", "Network", "Log"):
            cdp.call(f"{domain}.enable")
        results = [_check_one(cdp, p, settle_s, shot, expression) for p, shot in zip(paths, screenshots)]
        ws.close()
        return results
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        shutil.rmtree(home, ignore_errors=True)


def _check_one(cdp: "_Cdp", path: Path, settle_s: float, screenshot: Path | None,
               expression: str | None) -> RenderCheck:
    cdp.errors.clear()
    cdp.requests.clear()
    url = path.resolve().as_uri()
    cdp.call("Page.navigate", {"url": url})
    deadline = time.monotonic() + settle_s
    state: dict = {}
    while time.monotonic() < deadline:
        state = cdp.evaluate(
            "({ready: document.readyState, url: location.href, charts: document.querySelectorAll('.tl-chart').length,"
            " drawn: document.querySelectorAll('.tl-chart[data-drawn]').length,"
            " errors: Array.from(document.querySelectorAll('.tl-chart[data-error]')).map(e => e.getAttribute('data-error')),"
            " title: document.title})"
        ) or {}
        if (state.get("url") == url and state.get("ready") == "complete"
                and state.get("drawn", 0) + len(state.get("errors", [])) >= state.get("charts", 0)):
            break
        time.sleep(0.2)
    cdp.drain(0.3)
    extra = {"value": cdp.evaluate(expression)} if expression else {}
    if screenshot is not None:
        import base64

        data = cdp.call("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True})
        screenshot.write_bytes(base64.b64decode(data["data"]))
    return RenderCheck(
        url=url, charts=int(state.get("charts", 0)), drawn=int(state.get("drawn", 0)),
        chart_errors=tuple(state.get("errors", [])), console_errors=tuple(cdp.errors),
        network_requests=tuple(u for u in cdp.requests if not u.startswith(LOCAL_SCHEMES)),
        title=str(state.get("title", "")), screenshot=screenshot, extra=extra,
    )


def _devtools_url(proc: subprocess.Popen) -> str:
    deadline = time.monotonic() + 30
    assert proc.stderr is not None
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        if not line and proc.poll() is not None:
            raise RuntimeError(f"chromium exited with {proc.returncode} before DevTools started")
        m = re.search(r"DevTools listening on (ws://\S+)", line)
        if m:
            return m.group(1)
    raise RuntimeError("chromium did not announce its DevTools address in 30 s")


def _page_target(browser_ws: str) -> str:
    import urllib.request

    host = browser_ws.split("/")[2]
    with urllib.request.urlopen(f"http://{host}/json/list", timeout=10) as r:  # loopback only
        targets = json.load(r)
    for t in targets:
        if t.get("type") == "page":
            return t["webSocketDebuggerUrl"]
    raise RuntimeError("no page target in chromium")


class _Cdp:
    """Minimal DevTools protocol client collecting errors and requests."""

    def __init__(self, ws) -> None:
        self.ws, self.next_id = ws, 0
        self.errors: list[str] = []
        self.requests: list[str] = []

    def call(self, method: str, params: dict | None = None) -> dict:
        self.next_id += 1
        mid = self.next_id
        self.ws.send(json.dumps({"id": mid, "method": method, "params": params or {}}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == mid:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg.get("result", {})
            self._event(msg)

    def evaluate(self, expression: str):
        res = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        return res.get("result", {}).get("value")

    def drain(self, seconds: float) -> None:
        self.ws.settimeout(seconds)
        try:
            while True:
                self._event(json.loads(self.ws.recv()))
        except Exception:
            pass
        finally:
            self.ws.settimeout(30)

    def _event(self, msg: dict) -> None:
        method, p = msg.get("method"), msg.get("params", {})
        if method == "Network.requestWillBeSent":
            self.requests.append(p.get("request", {}).get("url", ""))
        elif method == "Runtime.exceptionThrown":
            d = p.get("exceptionDetails", {})
            self.errors.append(d.get("exception", {}).get("description") or d.get("text", "exception"))
        elif method == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            self.errors.append(" ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", [])))
        elif method == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
            e = p["entry"]
            self.errors.append(f"{e.get('source')}: {e.get('text')} {e.get('url', '')}".strip())
