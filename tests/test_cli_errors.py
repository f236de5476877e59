"""Every command on representative bad input: a non-zero exit, no traceback, and an error whose first line is at
most 200 characters not counting the file's path (lists such as the allowed keys go on the lines after it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from throttlelab.cli import main
from throttlelab.errors import MAX_ERROR_LINE, error_lines

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "data" / "published" / "samples" / "shop_namespace.om.gz"
PUBLISHED = REPO / "studies" / "published.yaml"
INGEST_FORMATS = ("auto", "monitor", "k6-json", "k6-csv", "k6-summary", "prometheus", "prometheus-text", "time",
                  "cgroup-dir")
K6_HEADER = ("metric_name,timestamp,metric_value,check,error,error_code,expected_response,group,method,name,proto,"
             "scenario,status,subproto,tls_version,url,extra_tags")
K6_ROW = "http_req_duration,1700000000,12.5,,,,true,,GET,http://x,HTTP/1.1,default,200,,,http://x,"


@pytest.fixture(scope="module")
def bad(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("bad")
    (d / "binary.log").write_bytes(b"garbage\x00\x01 not a log\nmore junk\n")
    (d / "text.log").write_text("this is not\nany format we read\n" * 5)
    (d / "k6_extra.csv").write_text(f"{K6_HEADER}\n{K6_ROW}\n{K6_ROW},9,9\n")
    (d / "bad.yaml").write_text("name: x\nruns: [\n")
    (d / "unknown_key.yaml").write_text("name: x\n" + "".join(f"made_up_key_{i}: 1\n" for i in range(3)))
    (d / "bad_value.yaml").write_text("name: x\nlimits: [abc]\nworkload: {kind: burner}\n")
    (d / "reports").mkdir()
    return d


def cases(d: Path) -> dict[str, list[str]]:
    out = str(d / "out.parquet")
    c = {"ingest: missing path": ["ingest", str(d / "missing.log"), "-o", out],
         "ingest: unknown format": ["ingest", "--format", "no-such-format", str(d / "text.log"), "-o", out],
         "ingest: no output named": ["ingest", str(d / "text.log")],
         "ingest: k6 CSV row with extra fields": ["ingest", "--strict", "--format", "k6-csv", str(d / "k6_extra.csv"),
                                                  "-o", out],
         "sweep: missing spec": ["sweep", str(d / "missing.yaml"), "--dry-run"],
         "sweep: bad YAML": ["sweep", str(d / "bad.yaml"), "--dry-run"],
         "sweep: unknown key": ["sweep", str(d / "unknown_key.yaml"), "--dry-run"],
         "sweep: bad value": ["sweep", str(d / "bad_value.yaml"), "--dry-run"],
         "run: missing study": ["run", str(d / "missing.yaml"), "--reports", str(d / "r")],
         "run: bad YAML": ["run", str(d / "bad.yaml"), "--reports", str(d / "r")],
         "run: unknown key": ["run", str(d / "unknown_key.yaml"), "--reports", str(d / "r")],
         "run: unknown run": ["run", str(PUBLISHED), "--only", "no-such-run", "--reports", str(d / "r")],
         "run: unknown parameter": ["run", str(PUBLISHED), "--only", "contention", "-p", "no_such_parameter", "1",
                                    "--reports", str(d / "r")],
         "recommend: missing export": ["recommend", "--openmetrics", str(d / "missing.om")],
         "recommend: garbage export": ["recommend", "--openmetrics", str(d / "text.log"), "--read-directly"],
         "recommend: empty namespace": ["recommend", "--openmetrics", str(SAMPLE), "--read-directly", "--namespace",
                                        "no-such-namespace"],
         "recommend: bad window": ["recommend", "--openmetrics", str(SAMPLE), "--read-directly", "--since", "soon"],
         "recommend: bad selector": ["recommend", "--openmetrics", str(SAMPLE), "--read-directly", "--selector", "=="],
         "recommend: unknown format": ["recommend", "--openmetrics", str(SAMPLE), "--format", "no-such-format"],
         "recommend: unreachable server": ["recommend", "--prometheus", "http://127.0.0.1:1"],
         "index: missing folder": ["index", str(d / "no-reports")],
         "check: missing folder": ["check", str(d / "no-reports")]}
    for fmt in INGEST_FORMATS:
        for name in ("binary.log", "text.log"):
            c[f"ingest --format {fmt}: garbage {name}"] = ["ingest", "--format", fmt, str(d / name), "-o", out]
    return c


CASES = sorted(cases(Path("/x")))


def first_line_width(line: str, argv: list[str]) -> int:
    """The line's length without the paths it names (the files given on the command line)."""
    for arg in sorted((a for a in argv if "/" in a), key=len, reverse=True):
        line = line.replace(arg, "")
    return len(line)


@pytest.mark.parametrize("case", CASES)
def test_every_error_is_one_short_line_without_traceback(case, bad, capsys):
    argv = cases(bad)[case]
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's own errors
        code = exc.code
    err = capsys.readouterr().err
    assert code not in (0, None), f"{case}: exit 0 on bad input; stderr {err!r}"
    assert "Traceback" not in err, err
    lines = err.splitlines()
    assert lines, f"{case}: nothing said"
    errors = [line for line in lines if ": error: " in line]
    assert errors, f"{case}: no error line in {err!r}"
    for line in [lines[0], *errors]:
        assert first_line_width(line, argv) <= MAX_ERROR_LINE, f"{case}: {len(line)} characters: {line}"


def test_garbage_under_monitor_says_what_was_expected(bad, capsys):
    assert main(["ingest", "--format", "monitor", str(bad / "text.log"), "-o", str(bad / "o.parquet")]) == 2
    assert "expected '--- <time> ---' blocks" in capsys.readouterr().err


def test_an_extra_field_says_how_many(bad, capsys):
    assert main(["ingest", "--strict", "--format", "k6-csv", str(bad / "k6_extra.csv"), "-o", str(bad / "o")]) == 2
    err = capsys.readouterr().err
    assert f"{bad / 'k6_extra.csv'}:3: wrong number of CSV fields" in err and "19 fields, expected 17" in err


def test_long_lists_go_on_the_next_line():
    keys = ", ".join(f"key_{i}" for i in range(60))
    text = error_lines(f"throttlelab: error: /some/where/x.yaml:3: key 'k': unknown key (allowed: {keys})")
    first, second = text.split("\n")
    assert first == "throttlelab: error: /some/where/x.yaml:3: key 'k': unknown key; allowed:" and second == f"  {keys}"
    text = error_lines("throttlelab: error: " + "; ".join(["a long clause of words"] * 20))
    assert len(text.splitlines()[0]) <= MAX_ERROR_LINE and text.replace("\n  ", " ").count("clause") == 20
    path = "/very/long/" + "d" * 300 + "/file.log"
    assert error_lines(f"throttlelab: error: {path}: not a monitor log") == f"throttlelab: error: {path}: not a monitor log"
