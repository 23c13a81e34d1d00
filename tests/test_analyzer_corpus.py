"""The recall corpus (bench/analyzer_corpus.tar.xz, unpacked by analyzer_recall.corpus_dir) and the scoring of bench/analyzer_recall.py and
bench/analyzer_precision.py.

The corpus is data: every case names a real fix commit, a class, an attribute and the line of the
read, and its buggy/fixed trees parse. The scorers are checked on synthetic findings (what the
analyzer reports today is measured by the bench, never asserted here); a few cheap cases run the
real `patchkit check` to show the scorer agrees with the findings list it is given.
"""
import ast
import importlib.util
import json
import re
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
sys.path.insert(0, str(BENCH))


def _load(name):
    spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


recall = _load("analyzer_recall")
precision = _load("analyzer_precision")
CASES = recall.load_cases()
IDS = [c["id"] for c in CASES]


# --- the corpus as data ---------------------------------------------------------------------

def test_the_corpus_archive_unpacks_and_packs_back_to_the_same_bytes(tmp_path):
    """The committed archive is what --pack writes from what --unpack gives: editing a case and
    packing it again changes only that case."""
    recall.main(["--unpack", str(tmp_path)])
    folder = tmp_path / "analyzer_corpus"
    assert sorted(c["id"] for c in recall.load_cases(folder)) == IDS
    out = tmp_path / "again.tar.xz"
    recall.pack_corpus(folder, out)
    assert out.read_bytes() == recall.CORPUS_ARCHIVE.read_bytes()
    (folder / IDS[0] / "case.json").write_text((folder / IDS[0] / "case.json").read_text() + "\n")
    recall.pack_corpus(folder, out)
    assert out.read_bytes() != recall.CORPUS_ARCHIVE.read_bytes()


def test_corpus_size_and_mix():
    kinds = [c["kind"] for c in CASES]
    assert len(CASES) >= 20
    assert kinds.count("cross-module-subclass") >= 5
    assert set(kinds) <= set(recall.KINDS)
    assert len({c["url"] for c in CASES}) == len(CASES), "one fix commit per case"


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_case_metadata(case):
    for field in recall.FIELDS:
        assert case.get(field) not in (None, "", []), f"{case['id']}: {field} missing"
    assert re.fullmatch(r"[0-9a-f]{40}", case["buggy_commit"]) and re.fullmatch(r"[0-9a-f]{40}", case["fixed_commit"])
    assert case["buggy_commit"] != case["fixed_commit"]
    assert case["url"].startswith("https://github.com/") and "/commit/" in case["url"]
    assert case["kind"] in recall.KINDS
    assert case["read"]["file"] in case["files"]


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_trees_parse_and_differ(case):
    for side in ("buggy", "fixed"):
        for rel in case["files"]:
            path = case["dir"] / side / rel
            assert path.is_file(), f"{path} missing"
            ast.parse(path.read_text(), filename=str(path))
    assert any((case["dir"] / "buggy" / rel).read_text() != (case["dir"] / "fixed" / rel).read_text()
               for rel in case["files"]), "the fix changes at least one file"


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_class_exists_and_read_line_reads_the_attribute(case):
    buggy = case["dir"] / "buggy"
    classes = {n.name for p in buggy.rglob("*.py") for n in ast.walk(ast.parse(p.read_text()))
               if isinstance(n, ast.ClassDef)}
    assert case["class"] in classes
    line = (buggy / case["read"]["file"]).read_text().splitlines()[case["read"]["line"] - 1]
    assert re.search(r"self\.%s\b" % re.escape(case["attribute"]), line), line


# --- scoring on synthetic findings ------------------------------------------------------------

NAMES = st.sampled_from(["A", "B", "Sub", "Base"])
ATTRS = st.sampled_from(["x", "y", "_state", "config"])
FINDING = st.fixed_dictionaries({"class": NAMES, "attribute": ATTRS,
                                 "code": st.sampled_from(["PK001", "PK002", "PK003", "PK006"]),
                                 "severity": st.sampled_from(["error", "warning"]),
                                 "path": st.sampled_from(["pkg/a.py", "pkg/b.py"]),
                                 "line": st.integers(1, 40)})
CASE = {"id": "t", "class": "Sub", "attribute": "x", "kind": "missing-super", "read": {"file": "pkg/a.py", "line": 7}}


@settings(max_examples=200, deadline=None)
@given(st.lists(FINDING, max_size=8), st.lists(FINDING, max_size=8))
def test_patchkit_score_follows_the_findings(buggy, fixed):
    s = recall.score(CASE, buggy, fixed, recall.patchkit_matches)
    on_class = lambda f: f["class"] == "Sub" and f["attribute"] == "x"  # noqa: E731
    at_read = lambda f: f["attribute"] == "x" and (f["path"], f["line"]) == ("pkg/a.py", 7)  # noqa: E731
    found = any(on_class(f) or at_read(f) for f in buggy)
    # on the fixed tree only the class counts, in the read's file: the same read may still fail for a
    # sibling class, and a class of the same name in another module is another class (redis's asyncio twin)
    clean = not any(on_class(f) and f["path"] == "pkg/a.py" for f in fixed)
    assert s == {"found": found, "clean": clean, "caught": found and clean}


def test_missing_tool_scores_none():
    assert recall.score(CASE, None, [], recall.patchkit_matches) is None
    assert recall.score(CASE, [], None, recall.pyrefly_matches) is None


def test_pyrefly_match_needs_the_attribute_and_the_class_or_the_line():
    on_class = {"path": "pkg/b.py", "line": 99, "message": "Object of class `Sub` has no attribute `x`"}
    on_line = {"path": "pkg/a.py", "line": 7, "message": "Object of class `Base` has no attribute `x`"}
    other_attr = {"path": "pkg/a.py", "line": 7, "message": "Object of class `Sub` has no attribute `xy`"}
    elsewhere = {"path": "pkg/b.py", "line": 7, "message": "Object of class `Base` has no attribute `x`"}
    assert recall.pyrefly_matches(CASE, [on_class, on_line, other_attr, elsewhere]) == [on_class, on_line]
    # on the fixed tree only the class, in the read's file (a same-named class elsewhere is another class)
    in_file = dict(on_class, path="pkg/a.py", line=30)
    assert recall.pyrefly_matches(CASE, [on_class, on_line, in_file], on_fixed=True) == [in_file]


def test_totals_count_per_kind_and_overall():
    rows = [{"kind": "renamed", "patchkit": {"found": True, "clean": True, "caught": True}, "pyrefly": None},
            {"kind": "renamed", "patchkit": {"found": True, "clean": False, "caught": False}, "pyrefly": None},
            {"kind": "other", "patchkit": {"found": False, "clean": True, "caught": False}, "pyrefly": None}]
    t = recall.totals(rows, "patchkit")
    assert t["renamed"] == {"cases": 2, "found": 2, "caught": 1, "flag_on_fixed": 1}
    assert t["all"] == {"cases": 3, "found": 2, "caught": 1, "flag_on_fixed": 1}
    assert recall.totals(rows, "pyrefly") == {}


# --- precision helpers ----------------------------------------------------------------------

@settings(max_examples=100, deadline=None)
@given(st.lists(FINDING, max_size=30), st.integers(0, 10), st.integers(0, 2**16))
def test_groups_and_sample(findings, n, seed):
    groups = precision.group_errors(findings)
    errors = {(f["path"], f["line"], (f["class"], f["attribute"], f["code"])) for f in findings if f["severity"] == "error"}
    assert sum(len(v) for v in groups.values()) == len(errors)
    assert all(f["severity"] == "error" and (f["class"], f["attribute"], f["code"]) == k
               for k, fs in groups.items() for f in fs)
    picked = precision.sample_groups(groups, n, seed)
    assert picked == precision.sample_groups(groups, n, seed)  # the seed fixes the sample
    assert len(picked) == min(n, len(groups)) and len(set(picked)) == len(picked) and set(picked) <= set(groups)


def test_tally_precision_and_families():
    labels = {"A.x:PK003": {"label": "real"}, "B.y:PK001": {"label": "latent"},
              "C.z:PK003": {"label": "fp", "family": "owner-injects"}, "D.w:PK002": {"label": "fp", "family": "owner-injects"}}
    t = precision.tally(["A.x:PK003", "B.y:PK001", "C.z:PK003", "D.w:PK002", "E.v:PK003"], labels)
    assert (t["real"], t["latent"], t["fp"], t["unlabelled"], t["labelled"]) == (1, 1, 2, 1, 4)
    assert t["precision"] == 0.5 and t["fp_families"] == {"owner-injects": 2}


def test_committed_labels_are_well_formed():
    committed = precision.load_labels()
    assert precision.LABELS.name.endswith(".json.xz") and sum(map(len, committed.values())) > 900
    for codebase, labels in committed.items():
        for gid, lab in labels.items():
            assert re.fullmatch(r"[\w.]+:PK\d{3}", gid), gid
            assert lab["label"] in precision.LABEL_KINDS and lab["reason"], (codebase, gid)
            assert bool(lab.get("family")) == (lab["label"] == "fp"), (codebase, gid)


# --- the real analyzer on a few cheap cases: the scorer agrees with what it is given -----------

CHEAP = [c for c in CASES if sum((c["dir"] / "buggy" / f).stat().st_size for f in c["files"]) < 20_000][:4]


@pytest.mark.parametrize("case", CHEAP, ids=[c["id"] for c in CHEAP])
def test_scorer_on_real_patchkit_output(case, tmp_path):
    buggy = recall.isolated_patchkit(case["dir"] / "buggy", ROOT)
    fixed = recall.isolated_patchkit(case["dir"] / "fixed", ROOT)
    assert all({"class", "attribute", "code", "line", "path"} <= set(f) for f in buggy + fixed)
    s = recall.score(case, buggy, fixed, recall.patchkit_matches)
    assert s["found"] == any(f["class"] == case["class"] and f["attribute"] == case["attribute"] for f in buggy)
    assert s["clean"] == (not any(f["class"] == case["class"] and f["attribute"] == case["attribute"]
                                  and f["path"].replace("\\", "/").endswith(case["read"]["file"]) for f in fixed))


def test_the_release_corpus_names_registry_releases_classes_and_reads():
    """bench/recall_releases.json.xz: each case a package on the registry with a buggy and a later fixed
    release, the class, the attribute, the read and the fix (checked on the releases by
    ``analyzer_recall.verify_release_case`` when the bench runs; here the data's shape)."""
    rec = _load("analyzer_recall")
    cases = rec.load_release_cases()
    assert len(cases) >= 20 and len({c["id"] for c in cases}) == len(cases)
    for c in cases:
        assert c["kind"] in rec.KINDS, c["id"]
        assert c["buggy"] != c["fixed"] and c["class"].isidentifier() and c["attribute"].isidentifier(), c["id"]
        assert c["read"]["file"].endswith(".py") and c["read"]["line"] > 0 and c["fix"]["file"].endswith(".py"), c["id"]
        assert c["url"].startswith("https://"), c["id"]


def test_a_shared_read_counts_for_every_class_it_fails_for():
    """A base's read inherited by several subclasses is one finding naming the others in also_in
    (older results: in the message); the case's class matches either way."""
    rec = _load("analyzer_recall")
    case = {"class": "DeepSpeedGPTInference", "attribute": "dtype"}
    new = [{"class": "DeepSpeedBERTInference", "attribute": "dtype", "also_in": ["DeepSpeedGPTInference"], "why": ""}]
    old = [{"class": "DeepSpeedBERTInference", "attribute": "dtype",
            "why": "no method ... (also in DeepSpeedBloomInference, DeepSpeedGPTInference, +2 more)"}]
    other = [{"class": "DeepSpeedBERTInference", "attribute": "dtype", "also_in": [], "why": ""}]
    assert rec.patchkit_matches(case, new) and rec.patchkit_matches(case, old) and not rec.patchkit_matches(case, other)


@pytest.mark.parametrize("name, versions, want", [
    ("pytorch-lightning", ("1.3.0rc3", "1.3.0", "1.3.01"), "1.3.0"),
    ("pytorch-lightning", ("1.3.0", "1.3.0rc3"), "1.3.0rc3"),
    ("pyannote.audio", ("4.0.7", "4.0.70"), "4.0.7"),
])
def test_the_release_cache_unpacks_the_version_asked_for(tmp_path, name, versions, want):
    """A pre-release or a longer version beside the one asked for is never taken for it (1.3.0rc3
    once stood in for 1.3.0 and made three corpus cases look unfixed); a dotted project name
    matches its wheel's underscores."""
    import zipfile
    rel = _load("_releases")
    dl = tmp_path / "dl"
    dl.mkdir()
    wheel_name = rel._norm(name)
    for v in versions:
        with zipfile.ZipFile(dl / f"{wheel_name}-{v}-py3-none-any.whl", "w") as z:
            z.writestr("pkg/__init__.py", f"VERSION = {v!r}\n")
            z.writestr(f"{wheel_name}-{v}.dist-info/METADATA", f"Name: {name}\nVersion: {v}\n")
    got = rel.fetch_release(f"{name}=={want}", tmp_path)
    assert (got / "pkg" / "__init__.py").read_text() == f"VERSION = {want!r}\n"


def test_a_wheel_s_purelib_data_folder_is_unpacked_where_an_install_puts_it(tmp_path):
    """openrlhf 0.11.2 ships its package under ``openrlhf-0.11.2.data/purelib/``: an install puts
    it at the top, so the release folder must have it there (set AJ analysed 53 files of it)."""
    import zipfile
    rel = _load("_releases")
    dl = tmp_path / "dl"
    dl.mkdir()
    with zipfile.ZipFile(dl / "datapkg-1.0-cp311-cp311-manylinux1_x86_64.whl", "w") as z:
        z.writestr("datapkg-1.0.data/purelib/datapkg/__init__.py", "X = 1\n")
        z.writestr("datapkg-1.0.data/platlib/datapkg_ext/mod.py", "Y = 2\n")
        z.writestr("datapkg-1.0.dist-info/METADATA", "Name: datapkg\nVersion: 1.0\n")
    got = rel.fetch_release("datapkg==1.0", tmp_path)
    assert (got / "datapkg" / "__init__.py").read_text() == "X = 1\n"
    assert (got / "datapkg_ext" / "mod.py").read_text() == "Y = 2\n"
