"""`patchkit check` as ruff/mypy users expect it: codes, excludes, stdin, baseline, snippets, statistics."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings, strategies as st

from patchkit.cli import main

MODE = "class A:\n    def __init__(self, c):\n        if c:\n            self.x = 1\n    def f(self):\n        return self.x\n"
NEVER = "class B:\n    def __init__(self):\n        self.y = 1\n    def g(self):\n        return self.z\n"


def check(*args, input=None):
    return CliRunner().invoke(main, ["check", "--no-cache", *map(str, args)], input=input)


@pytest.fixture
def proj(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "mode.py").write_text(MODE)
    (tmp_path / "pkg" / "never.py").write_text(NEVER)
    return tmp_path


def test_text_shows_severity_and_a_caret_under_the_read(proj):
    r = check("pkg", "--fail-on", "warning")
    assert r.exit_code == 1
    lines = r.stdout.splitlines()
    i = lines.index(next(ln for ln in lines if "PK003" in ln))
    assert lines[i].startswith("pkg/never.py:5:16: error: PK003 self.z is read but never assigned in B")
    assert lines[i + 1] == " 5 |         return self.z"
    assert lines[i + 2] == "   |                ^^^^^^"   # under `self.z`, columns 16-21
    assert any(ln.startswith("pkg/mode.py:6:16: warning: PK001") for ln in lines)
    r = check("pkg", "--format", "concise")
    assert all(":" in ln and "|" not in ln for ln in r.stdout.splitlines())


def test_default_fail_on_is_error(proj):
    assert check("pkg/mode.py").exit_code == 0       # a warning only
    assert check("pkg/never.py").exit_code == 1      # an error
    assert check("pkg/mode.py", "--fail-on", "warning").exit_code == 1


def test_select_ignore_and_exit_zero(proj):
    r = check("pkg", "--select", "PK003")
    assert "PK003" in r.stdout and "PK001" not in r.stdout and r.exit_code == 1
    r = check("pkg", "--ignore", "PK003,PK004")
    assert "PK003" not in r.stdout and "PK001" in r.stdout and r.exit_code == 0
    r = check("pkg", "--select", "PK00", "--ignore", "PK001")
    assert "PK001" not in r.stdout and "PK003" in r.stdout
    r = check("pkg", "--exit-zero")
    assert r.exit_code == 0 and "PK003" in r.stdout
    r = check("pkg", "--select", "PK3")
    assert r.exit_code == 2 and "--select PK3: no such code; did you mean 'PK003'?" in r.output


def test_exclude_globs(proj):
    (proj / "pkg" / "gen").mkdir()
    (proj / "pkg" / "gen" / "x_pb2.py").write_text(NEVER.replace("class B", "class G"))
    r = check("pkg", "--exclude", "never.py", "--exclude", "gen")
    assert "never.py" not in r.stdout and "x_pb2" not in r.stdout and "2 file(s) excluded" in r.stderr
    r = check("pkg", "--exclude", "*_pb2.py")
    assert "x_pb2" not in r.stdout and "never.py" in r.stdout


def test_stdin_with_a_filename(proj):
    r = check("-", "--stdin-filename", "src/never.py", input=NEVER)
    assert r.exit_code == 1 and r.stdout.startswith("src/never.py:5:16: error: PK003 self.z")
    assert " 5 |         return self.z" in r.stdout


def test_statistics_and_output_file(proj):
    r = check("pkg", "--statistics")
    rows = [ln.split() for ln in r.stdout.splitlines()]
    assert ["1", "PK001", "warning"] == rows[0][:3] or ["1", "PK003", "error"] == rows[0][:3]
    assert {row[1] for row in rows} == {"PK001", "PK003"}
    out = proj / "report.txt"
    r = check("pkg", "--output-file", out, "--format", "concise")
    assert r.stdout == "" and r.exit_code == 1
    assert "pkg/never.py:5:16: error: PK003" in out.read_text()


def test_only_errors_in_every_format(proj):
    for fmt in ("text", "concise"):
        r = check("pkg", "--only-errors", "--format", fmt)
        assert "PK003" in r.stdout and "PK001" not in r.stdout
    doc = json.loads(check("pkg", "--only-errors", "--format", "json").stdout)
    assert [f["code"] for f in doc["findings"]] == ["PK003"]
    doc = json.loads(check("pkg", "--only-errors", "--format", "sarif").stdout)
    assert [x["ruleId"] for x in doc["runs"][0]["results"]] == ["PK003"]


def _many_modes(n: int) -> str:
    sets = "".join(f"            self.a{i} = {i}\n" for i in range(n))
    reads = " + ".join(f"self.a{i}" for i in range(n))
    return f"class M:\n    def __init__(self, c):\n        if c:\n{sets}    def f(self):\n        return {reads}\n"


@pytest.mark.parametrize("n,hinted", [(50, False), (51, True)])
def test_a_long_warning_report_ends_with_how_to_see_the_errors_alone(tmp_path, monkeypatch, n, hinted):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "modes.py").write_text(_many_modes(n))
    (tmp_path / "pkg" / "never.py").write_text(NEVER)
    r = check("pkg")
    assert r.stdout.count(": warning: PK001") == n
    hint = [ln for ln in r.stderr.splitlines() if ln.startswith("hint:")]
    assert hint == ([f"hint: {n} warnings (set-up order and configuration modes a caller may keep safe); "
                     "--only-errors prints the 1 error(s) alone, --statistics counts them per code"] if hinted else [])
    assert not [ln for ln in check("pkg", "--only-errors").stderr.splitlines() if ln.startswith("hint:")]


@given(st.lists(st.tuples(st.sampled_from(["a.py", "b.py"]), st.integers(1, 4), st.integers(1, 9),
                          st.sampled_from(["PK001", "PK003"]), st.sampled_from(["x", "y"])), max_size=30))
def test_one_finding_per_file_line_attribute_code(raw):
    """The output never repeats a (file, line, attribute, code); every such key survives."""
    from patchkit.checkrun import _dedupe
    from patchkit.ftypes import Finding
    fs = [Finding(p, ln, col, code, "m", "C", attr) for p, ln, col, code, attr in raw]
    out, merged = _dedupe(fs)
    keys = [(f.path, f.line, f.attr, f.code) for f in out]
    assert len(keys) == len(set(keys)) and set(keys) == {(f.path, f.line, f.attr, f.code) for f in fs}
    assert merged == len(fs) - len(out)
    for f in out:  # the first column of its key wins
        assert f.col == min(g.col for g in fs if (g.path, g.line, g.attr, g.code) == (f.path, f.line, f.attr, f.code))


def test_null_byte_is_named_with_its_line(proj):
    (proj / "nul.py").write_bytes(b"x = 1\ny = 2\x00\n")
    r = check("nul.py")
    assert r.exit_code == 2
    assert "a null byte (\\x00) at line 2, column 6" in r.stderr and "line None" not in r.output


def test_no_python_files_and_missing_paths_are_errors(proj):
    (proj / "docs").mkdir()
    (proj / "docs" / "a.md").write_text("# doc\n")
    r = check("docs")
    assert r.exit_code == 2 and "docs: holds no Python files; nothing to check" in r.stderr
    r = check("nope/")
    assert r.exit_code == 2 and "nope/: no such file or folder" in r.stderr


def test_quiet_drops_the_summary_and_keeps_results(proj):
    r = CliRunner().invoke(main, ["check", "--no-cache", "-q", "pkg"])
    assert "PK003" in r.stdout and "file(s)" not in r.stderr
    r = CliRunner().invoke(main, ["-q", "check", "--no-cache", "pkg"])
    assert "PK003" in r.stdout and "file(s)" not in r.stderr
    r = CliRunner().invoke(main, ["check", "--no-cache", "pkg"])
    assert "2 file(s), 2 finding(s) (1 error(s), 1 warning(s))" in r.stderr


def test_color_always_and_never(proj):
    r = CliRunner().invoke(main, ["check", "--no-cache", "--color", "always", "pkg/never.py"])
    assert "\x1b[" in r.stdout and "error:" in r.stdout
    r = CliRunner().invoke(main, ["check", "--no-cache", "--color", "never", "pkg/never.py"])
    assert "\x1b[" not in r.stdout


# ------------------------------------------------------------------------------------ baseline
def test_baseline_hides_known_findings_and_survives_line_moves(proj):
    bl = proj / "patchkit-baseline.json"
    r = check("pkg", "--baseline", bl, "--write-baseline")
    assert r.exit_code == 0 and bl.is_file()
    assert len(json.loads(bl.read_text())["findings"]) == 2
    r = check("pkg", "--baseline", bl, "--fail-on", "warning")
    assert r.exit_code == 0 and r.stdout == "" and "2 in the baseline" in r.stderr
    # lines move (a new method above): still known
    (proj / "pkg" / "never.py").write_text(NEVER.replace("    def g", "    def h(self):\n        return 1\n    def g"))
    assert check("pkg", "--baseline", bl, "--fail-on", "warning").exit_code == 0
    # a new read is new
    (proj / "pkg" / "never.py").write_text(NEVER + "    def k(self):\n        return self.w\n")
    r = check("pkg", "--baseline", bl)
    assert r.exit_code == 1 and "self.w" in r.stdout and "self.z" not in r.stdout


def test_baseline_from_another_folder_matches(proj, monkeypatch):
    bl = proj / "bl.json"
    check("pkg", "--baseline", bl, "--write-baseline")
    monkeypatch.chdir(proj / "pkg")
    r = CliRunner().invoke(main, ["check", "--no-cache", ".", "--baseline", str(bl), "--fail-on", "warning"])
    assert r.exit_code == 0, r.output


def test_bad_baseline_file_is_a_one_line_error(proj):
    r = check("pkg", "--baseline", proj / "missing.json")
    assert r.exit_code == 2 and "no such file (create it with --write-baseline)" in r.stderr
    (proj / "junk.json").write_text("[1, 2]")
    r = check("pkg", "--baseline", proj / "junk.json")
    assert r.exit_code == 2 and "not a patchkit baseline" in r.stderr
    r = check("pkg", "--write-baseline")
    assert r.exit_code == 2 and "--write-baseline needs --baseline FILE" in r.stderr


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(blank=st.integers(0, 6), indent_extra=st.sampled_from(["", "    "]))
def test_fingerprint_ignores_line_numbers_property(tmp_path, blank, indent_extra):
    """Inserting blank lines or a helper above a read never changes its fingerprint."""
    from patchkit.baseline import Lines, entries
    from patchkit.analysis import analyse_source
    base = tmp_path / f"b{blank}{len(indent_extra)}"
    base.mkdir(exist_ok=True)
    a, b = base / "a.py", base / "b.py"
    a.write_text(NEVER)
    moved = NEVER.replace("    def g", "\n" * blank + ("    def h(self):\n        pass\n" if indent_extra else "") + "    def g")
    b.write_text(moved)
    fa = analyse_source("a.py", NEVER)
    fb = analyse_source("b.py", moved)
    from dataclasses import replace
    ea = entries([replace(f, path=str(a)) for f in fa], base, Lines())
    eb = entries([replace(f, path=str(b)) for f in fb], base, Lines())
    assert [e["line"] for e in ea] != [e["line"] for e in eb] or blank == 0 and not indent_extra
    assert [e["fingerprint"] for e in ea] != [] and \
        [e["fingerprint"] for e in ea] == [e["fingerprint"] for e in entries(
            [replace(f, path=str(a)) for f in fb], base, Lines({str(a): moved}))]


def test_explain_prints_rule_example_and_fix():
    r = CliRunner().invoke(main, ["explain", "PK003"])
    assert r.exit_code == 0
    assert r.stdout.startswith("PK003 (never-assigned, default severity: error)")
    assert "Example:" in r.stdout and "How to fix:" in r.stdout and "# patchkit: ignore[PK003]" in r.stdout
    r = CliRunner().invoke(main, ["explain", "pk03"])
    assert r.exit_code == 2 and "did you mean 'PK003'?" in r.stderr
    r = CliRunner().invoke(main, ["explain", "--json"])
    assert {x["code"] for x in json.loads(r.stdout)} >= {"PK001", "PK002", "PK003", "PK004", "PK005", "PK006"}


def test_inline_ignore_as_documented(proj):
    (proj / "ig.py").write_text(MODE.replace("return self.x", "return self.x + self.y  # patchkit: ignore[PK001,PK003]")
                                + "    def g(self):\n        return self.w  # patchkit: ignore\n"
                                + "    def h(self):\n        return self.v  # patchkit: ignore[PK001]\n")
    r = check("ig.py", "--format", "concise", "--fail-on", "warning")
    assert r.stdout.splitlines() == [ln for ln in r.stdout.splitlines() if "self.v" in ln] and "PK003" in r.stdout
