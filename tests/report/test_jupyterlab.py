"""JupyterLab in a real browser: a notebook runs top to bottom and its charts draw; a report's
downloaded notebook shows its charts without being trusted."""

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from throttlelab.report.html.browser import chromium_path

REPO = Path(__file__).resolve().parents[2]
NOTEBOOK = "07_capacity.ipynb"
OFFLINE_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--disable-default-apps", "--no-first-run", "--disable-extensions",
                "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"]

pytestmark = [
    pytest.mark.slow, pytest.mark.browser,
    pytest.mark.skipif(chromium_path() is None, reason="chromium not installed (make system-tools installs it)"),
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """``jupyter lab`` on loopback with a token, serving a copy of the notebooks folder."""
    root = tmp_path_factory.mktemp("lab")
    (root / "notebooks").mkdir()
    shutil.copy(REPO / "notebooks" / NOTEBOOK, root / "notebooks" / NOTEBOOK)
    port, token = _free_port(), "throttlelab-test-token"
    env = {**os.environ, "JUPYTER_CONFIG_DIR": str(root / ".jupyter"), "JUPYTER_RUNTIME_DIR": str(root / ".runtime"),
           "JUPYTERLAB_WORKSPACES_DIR": str(root / ".workspaces")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "jupyter", "lab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
         f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}", "--expose-app-in-browser",
         "--LabApp.news_url=", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
         "--LabApp.extension_manager=readonly", *(["--allow-root"] if os.geteuid() == 0 else [])],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=root)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            with urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=2) as r:  # loopback only
                if r.status == 200:
                    break
        except OSError:
            time.sleep(0.5)
    else:
        proc.terminate()
        pytest.fail("jupyter lab did not start in 90 s: " + (proc.stderr.read().decode()[-2000:] if proc.stderr else ""))
    yield base, token, root
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium_path(), args=OFFLINE_ARGS)
        yield b
        b.close()


def _open(browser, base, token, path):
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    outside = []
    page.on("request", lambda r: outside.append(r.url) if not r.url.startswith((base, "data:", "blob:")) else None)
    page.goto(f"{base}/lab/tree/{path}?token={token}")
    page.wait_for_function("window.jupyterapp && window.jupyterapp.shell && "
                           "document.querySelector('.jp-NotebookPanel .jp-Cell')", timeout=90_000)
    return page, outside


KERNEL_IDLE = """() => { const w = window.jupyterapp.shell.currentWidget;
  const k = w && w.sessionContext && w.sessionContext.session && w.sessionContext.session.kernel;
  return !!k && k.status === 'idle'; }"""
# execution counts from the notebook's model: a cell whose code is collapsed (the setup) shows no prompt
PROMPTS = """() => { const w = window.jupyterapp.shell.currentWidget;
  return w.content.widgets.filter(c => c.model.type === 'code').map(c => c.model.executionCount); }"""
ALL_RAN = f"() => {{ const p = ({PROMPTS})(); return p.length > 0 && p.every(n => n !== null && n > 0); }}"


def test_notebook_runs_top_to_bottom_in_jupyterlab_and_its_charts_draw(lab, browser, tmp_path):
    base, token, _ = lab
    page, outside = _open(browser, base, token, f"notebooks/{NOTEBOOK}")
    # the kernel is up and idle, then "Run All" (its promise is not awaited: it can outlive the call)
    page.wait_for_function(KERNEL_IDLE, timeout=120_000)
    page.evaluate("() => { window.jupyterapp.commands.execute('notebook:run-all-cells'); return true; }")
    try:  # done when every code cell has an execution count (none queued or running)
        page.wait_for_function(ALL_RAN, timeout=300_000)
    except Exception:
        prompts = page.evaluate(PROMPTS)
        page.screenshot(path=str(tmp_path / "lab.png"))
        pytest.fail(f"notebook did not run to the end in JupyterLab: prompts {prompts}; screenshot {tmp_path / 'lab.png'}")
    page.wait_for_function("document.querySelectorAll('.jp-OutputArea .tl-chart').length > 0 && "
                           "document.querySelectorAll('.jp-OutputArea .tl-chart').length == "
                           "document.querySelectorAll('.jp-OutputArea .tl-chart[data-drawn]').length", timeout=60_000)
    errors = page.evaluate("Array.from(document.querySelectorAll('.jp-OutputArea-output[data-mime-type="
                           "\"application/vnd.jupyter.stderr\"]')).map(e => e.innerText)")
    assert not [e for e in errors if "Traceback" in e or "Error" in e], errors
    outputs = page.evaluate("Array.from(document.querySelectorAll('.jp-OutputArea-output')).map(e => e.textContent)")
    answer = next((o for o in outputs if o.strip().startswith("Answer.")), "")
    assert "streams" in answer and "Rests on" in answer, outputs[:3]
    assert outputs.index(answer) == 0, "the answer is the notebook's first output"
    # on the first screen: where its lead ends with the notebook scrolled to the top (Run All scrolls as it goes)
    lead_end = page.evaluate("""() => { const o = Array.from(document.querySelectorAll('.jp-OutputArea-output'))
      .find(e => e.textContent.trim().startsWith('Answer.'));
      const sc = o.closest('.jp-WindowedPanel-outer') || o.closest('.jp-Notebook');
      return (o.querySelector('p') || o).getBoundingClientRect().bottom + (sc ? sc.scrollTop : 0); }""")
    assert lead_end <= 800, f"the answer's lead ends {lead_end:.0f} px down an 800 px window"
    print(f"answer lead ends {lead_end:.0f} px down the window")
    assert outside == [], outside
    page.close()


def test_downloaded_report_notebook_shows_its_charts_untrusted(lab, browser, tmp_path):
    """The study runner's notebook.ipynb: PNG beside each chart, no script HTML, so JupyterLab shows them."""
    from throttlelab.report.study.study_runner import run_study
    from throttlelab.report.study.study_file import load_study

    base, token, root = lab
    outcome = run_study(load_study(REPO / "studies" / "published.yaml").select(["mediamtx-capacity"]), tmp_path,
                        progress=False)
    assert outcome.ok
    executed = outcome.outcomes[0].folder / "notebook.ipynb"
    nb = json.loads(executed.read_text())
    charts = [o for c in nb["cells"] for o in c.get("outputs", [])
              if o.get("metadata", {}).get("throttlelab", {}).get("role") == "chart"]
    assert charts and all("image/png" in o["data"] and "text/html" not in o["data"] for o in charts)
    assert not re.search(r"[\U0001F300-\U0001FAFF\u2600-\u27BF]", executed.read_text()), "no emoji"
    shutil.copy(executed, root / "downloaded.ipynb")
    page, outside = _open(browser, base, token, "downloaded.ipynb")
    page.wait_for_function("document.querySelectorAll('.jp-OutputArea-output img').length > 0", timeout=60_000)
    drawn = page.evaluate("Array.from(document.querySelectorAll('.jp-OutputArea-output img'))"
                          ".filter(i => i.complete && i.naturalWidth > 100).length")
    assert drawn == len(charts)
    assert outside == [], outside
    page.close()
