"""Every check carries valid/invalid examples; each becomes a test (the Fixit idea)."""
import pytest

from patchkit.registry import checks

CASES = [(c.name, "valid", e) for c in checks().values() for e in c.valid] + \
        [(c.name, "invalid", e) for c in checks().values() for e in c.invalid]


@pytest.mark.parametrize("check,kind,example", CASES, ids=[f"{c}:{k}:{e.name}" for c, k, e in CASES])
def test_example(check, kind, example):
    fs = checks()[check].run("example.py", example.source, None, {})
    got = sorted({(f.code, f.attr) for f in fs})
    if kind == "valid":
        assert got == [], "\n".join(map(str, fs))
    else:
        assert got == sorted(set(example.expect)), "\n".join(map(str, fs))
        assert all(f.line > 0 and f.cls and f.why for f in fs)


def test_field_bug_message_names_the_other_class():
    c = checks()["attr-init"]
    ex = next(e for e in c.invalid if e.name.startswith("the field bug"))
    (f,) = c.run("eagle_worker_v2.py", ex.source, None, {})
    assert f.cls == "EAGLEWorkerV2"
    assert "assigned in EagleDraftWorker.__init__ at line 4, a different class" in f.hint
    assert str(f).startswith("eagle_worker_v2.py:10:")
