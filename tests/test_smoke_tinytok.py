"""The tiny model's byte-level tokenizer: a vocabulary of exactly the model's size that the real
``tokenizers`` library loads, and a client-side decoder that agrees with it (the request-kinds
stage uses it to bound how far decoding ran past a stop string)."""
from __future__ import annotations

import json
import os
import sys

import pytest
from hypothesis import given, settings, strategies as st

from patchkit.smoke import tiny, tinytok
from patchkit.smoke.stages.kinds import pick_stop
from patchkit.smoke.textcaps import grammar_missing, option_value, text_skips

VOCAB = tiny.TARGET["vocab_size"]


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    t, _d, _e = tiny.write_all(tmp_path_factory.mktemp("tiny"))
    return t


def test_vocabulary_fills_the_model_exactly(folder):
    doc = json.loads((folder / "tokenizer.json").read_text())
    ids = sorted(doc["model"]["vocab"].values())
    assert ids == list(range(VOCAB))
    vocab = doc["model"]["vocab"]
    for merge in doc["model"]["merges"]:
        a, b = merge.split(" ")
        assert a in vocab and b in vocab and a + b in vocab
    assert [t["id"] for t in doc["added_tokens"]] == [0, 1, 2]
    assert (tiny.TARGET["bos_token_id"], tiny.TARGET["eos_token_id"]) == (1, 2)


def test_a_vocabulary_size_out_of_range_is_refused():
    with pytest.raises(ValueError, match="vocab_size 100"):
        tinytok.tokenizer_json(100)


def test_the_real_tokenizers_library_loads_it_and_agrees_with_the_client_decoder(folder):
    tokenizers = pytest.importorskip("tokenizers", reason="tokenizers is in the test extras")
    tok = tokenizers.Tokenizer.from_file(str(folder / "tokenizer.json"))
    assert tok.get_vocab_size() == VOCAB
    decode = tinytok.byte_decoder(folder)
    text = 'Hello world, 123-4567 {"ok":true,"n":22} \u00e9\u4e2d'
    ids = tok.encode(text).ids
    assert tok.decode(ids) == text == decode(ids)
    import random
    rng = random.Random(7)
    for _ in range(50):
        ids = [rng.randrange(0, VOCAB) for _ in range(rng.randrange(1, 40))]
        assert decode(ids) == tok.decode(ids, skip_special_tokens=True)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=64))
def test_every_byte_string_is_spelled_by_the_byte_tokens(data):
    doc = tinytok.tokenizer_json(VOCAB)
    sym = tinytok.byte_symbols()
    ids = [doc["model"]["vocab"][sym[b]] for b in data]
    pieces = {i: s for s, i in doc["model"]["vocab"].items()}
    back = {s: b for b, s in sym.items()}
    assert bytes(back[c] for i in ids for c in pieces[i]) == data


def test_byte_decoder_is_none_for_other_tokenizers(tmp_path):
    assert tinytok.byte_decoder(tmp_path) is None
    (tmp_path / "tokenizer.json").write_text(json.dumps({"decoder": {"type": "Metaspace"}, "model": {"type": "BPE"}}))
    assert tinytok.byte_decoder(tmp_path) is None


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=80))
def test_pick_stop_returns_a_first_occurrence_in_the_later_part(text):
    stop = pick_stop(text)
    if stop:
        i = text.find(stop)
        assert len(stop) == 2 and stop.isascii() and stop.isprintable() and stop.strip() == stop
        assert i >= 1 and "\ufffd" not in text[i - 1:i + 3]


def test_text_skips_follow_the_launch_flags():
    assert set(text_skips(["--skip-tokenizer-init"], "")) == {"stop strings", "regex", "json-schema"}
    assert set(text_skips(["--grammar-backend", "none"], "")) == {"regex", "json-schema"}
    assert set(text_skips(["--grammar-backend=none"], "")) == {"regex", "json-schema"}
    assert text_skips(["--grammar-backend", "xgrammar"], "skipped: x") == {"regex": "skipped: x", "json-schema": "skipped: x"}
    assert text_skips(["--grammar-backend", "xgrammar"], "") == {}
    assert option_value(["--a", "1", "--a=2"], "--a") == "2" and option_value([], "--a") is None


def test_grammar_probe_asks_the_servers_python(tmp_path):
    env = {**os.environ, "PYTHONPATH": ""}
    missing = grammar_missing(sys.executable, env, backend="no_such_grammar_backend_pk")
    assert missing.startswith("skipped: the server's Python cannot import no_such_grammar_backend_pk")
    for mod in ("fakegrammar_pk", "tokenizers"):
        (tmp_path / mod).mkdir()
        (tmp_path / mod / "__init__.py").write_text("")
    env["PYTHONPATH"] = str(tmp_path)
    assert grammar_missing(sys.executable, env, backend="fakegrammar_pk") == ""


def test_tiny_base_args_choose_the_text_launch_only_with_a_grammar_backend():
    assert "--skip-tokenizer-init" in tiny.base_args("skipped: no grammar backend")
    text = tiny.base_args("")
    assert "--skip-tokenizer-init" not in text and option_value(text, "--grammar-backend") == "xgrammar"
