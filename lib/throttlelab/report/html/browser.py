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
#: The screen every check uses (a laptop): the answer must be visible on it without scrolling.
VIEWPORT = (1280, 800)
#: Machinery that must never show in a page's visible text: polars reprs, Python reprs.
LEAK_PATTERNS = {
    "polars shape line": r"shape: \(\d",
    "Path repr": r"(?:Posix|Windows)?Path\(['\"]",
    "object repr": r"object at 0x[0-9a-f]+",
    "dtype row": r"(?m)^(?:\s*(?:str|f64|f32|i64|i32|u32|u64|bool|datetime\[\w+\]|list\[\w+\]|struct\[\d+\])\s*){2,}$",
    "dataclass repr": r"\b[A-Z][A-Za-z]+\((?:[a-z_]+=){1}",
    "truncation mark": r"(?m)^\s*…\s*$",
}
#: JavaScript returning what a reader sees first: the first block under the body and the answer box.
_PAGE_STATE = """(() => {
  const box = document.querySelector('.answer');
  let rect = null, first = false, text = '';
  if (box) {
    const r = box.getBoundingClientRect();
    rect = {top: r.top, bottom: r.bottom, height: r.height, width: r.width};
    text = box.innerText;
    const blocks = Array.from(document.querySelectorAll('.tl-chart, table, .tl-table, svg, canvas, img'))
      .filter(e => !box.contains(e) && !e.closest('details') && !e.closest('.answer'));
    first = blocks.every(e => (box.compareDocumentPosition(e) & Node.DOCUMENT_POSITION_FOLLOWING) !== 0);
  }
  return {answer: !!box, answer_rect: rect, answer_first: first, answer_text: text,
          visible_text: document.body ? document.body.innerText : ''};
})()"""


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
    answer: bool = False
    answer_first: bool = False
    answer_visible: bool = False
    answer_text: str = ""
    leaks: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return self.drawn == self.charts and not (self.chart_errors or self.console_errors or self.network_requests
                                                  or self.leaks)

    @property
    def problems(self) -> list[str]:
        """What a reader would see wrong, one short line each (empty when the page is fine)."""
        out = []
        if self.drawn != self.charts:
            out.append(f"{self.charts - self.drawn} of {self.charts} charts not drawn")
        out += [f"chart error: {m}" for m in self.chart_errors]
        out += [f"console error: {m}" for m in self.console_errors]
        out += [f"network request: {m}" for m in self.network_requests]
        out += [f"leak: {m}" for m in self.leaks]
        return out

    @property
    def answer_problems(self) -> list[str]:
        """Why the decision box is not what a reader sees first (empty when it is)."""
        if not self.answer:
            return ["no decision box (class=answer)"]
        out = []
        if not self.answer_first:
            out.append("a chart or table comes before the decision box")
        if not self.answer_visible:
            out.append(f"decision box not entirely visible on a {VIEWPORT[0]}x{VIEWPORT[1]} screen")
        return out


def find_leaks(text: str) -> list[str]:
    """Leak patterns (:data:`LEAK_PATTERNS`) found in ``text``, as ``"kind: excerpt"``.

    >>> find_leaks("shape: (3, 2)")
    ['polars shape line: shape: (3']
    >>> find_leaks("give 4 cores")
    []
    """
    out = []
    for kind, pattern in LEAK_PATTERNS.items():
        m = re.search(pattern, text)
        if m:
            out.append(f"{kind}: {m.group(0).strip()[:80]}")
    return out


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
        cdp.call("Emulation.setDeviceMetricsOverride",
                 {"width": VIEWPORT[0], "height": VIEWPORT[1], "deviceScaleFactor": 1, "mobile": False})
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
    page = cdp.evaluate(_PAGE_STATE) or {}
    rect = page.get("answer_rect") or {}
    if screenshot is not None:  # the first screen, as a reader sees it
        import base64

        data = cdp.call("Page.captureScreenshot", {"format": "png"})
        screenshot.parent.mkdir(parents=True, exist_ok=True)
        screenshot.write_bytes(base64.b64decode(data["data"]))
    return RenderCheck(
        url=url, charts=int(state.get("charts", 0)), drawn=int(state.get("drawn", 0)),
        chart_errors=tuple(state.get("errors", [])), console_errors=tuple(cdp.errors),
        network_requests=tuple(u for u in cdp.requests if not u.startswith(LOCAL_SCHEMES)),
        title=str(state.get("title", "")), screenshot=screenshot, extra=extra,
        answer=bool(page.get("answer")), answer_first=bool(page.get("answer_first")),
        answer_visible=bool(rect) and rect.get("top", -1) >= 0 and rect.get("bottom", 1e9) <= VIEWPORT[1]
        and rect.get("height", 0) > 0,
        answer_text=str(page.get("answer_text", "")), leaks=tuple(find_leaks(str(page.get("visible_text", "")))),
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
