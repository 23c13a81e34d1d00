"""A byte-level BPE tokenizer for the built-in tiny model, written as plain JSON (no ``tokenizers``
needed to write it). With it the smoke servers can run without ``--skip-tokenizer-init``, so the
request-kinds stage covers text stop strings and, where the server's Python has a grammar backend,
regex- and JSON-schema-constrained decoding.

The vocabulary fills the model's ``vocab_size`` exactly: three special tokens (``<unk>``, ``<s>``,
``</s>`` as ids 0, 1, 2, matching the model's bos/eos), the 256 byte symbols of GPT-2's byte-level
alphabet, then two-byte tokens, each one merge of two byte symbols: printable ASCII pairs first
(so random weights often decode to readable text), then the remaining pairs. Every token decodes to
one or two bytes, and every byte string encodes."""
from __future__ import annotations

import json
from pathlib import Path

SPECIALS = ("<unk>", "<s>", "</s>")
#: printable ASCII in a rough letter-frequency order (the pairs among these come first)
PRINTABLE = " etaoinshrdlcumwfgypbvkjxqzETAOINSHRDLCUMWFGYPBVKJXQZ0123456789.,:;!?'\"-_()[]{}<>/\\|@#$%^&*+=~`"


def byte_symbols() -> dict[int, str]:
    """GPT-2's byte -> printable unicode symbol map (the ``ByteLevel`` pre-tokenizer's alphabet)."""
    keep = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + \
        list(range(ord("®"), ord("ÿ") + 1))
    chars, extra = list(keep), 0
    for b in range(256):
        if b not in keep:
            keep.append(b)
            chars.append(256 + extra)
            extra += 1
    return dict(zip(keep, (chr(c) for c in chars)))


def _pairs():
    sym = byte_symbols()
    first = [ord(c) for c in PRINTABLE]
    seen = set()
    for group in (first, range(256)):
        for a in group:
            for b in group:
                if (a, b) not in seen:
                    seen.add((a, b))
                    yield sym[a], sym[b]


def tokenizer_json(vocab_size: int) -> dict:
    """The ``tokenizer.json`` document for a vocabulary of exactly ``vocab_size`` ids."""
    if not 3 + 256 <= vocab_size <= 3 + 256 + 256 * 256:
        raise ValueError(f"vocab_size {vocab_size}: a byte-level tiny tokenizer needs 259..65795 ids")
    vocab = {s: i for i, s in enumerate(SPECIALS)}
    for b, s in sorted(byte_symbols().items()):
        vocab[s] = len(vocab)
    merges = []
    for a, b in _pairs():
        if len(vocab) >= vocab_size:
            break
        vocab[a + b] = len(vocab)
        merges.append(f"{a} {b}")
    added = [{"id": i, "content": s, "single_word": False, "lstrip": False, "rstrip": False,
              "normalized": False, "special": True} for i, s in enumerate(SPECIALS)]
    byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True}
    return {"version": "1.0", "truncation": None, "padding": None, "added_tokens": added,
            "normalizer": None, "pre_tokenizer": byte_level, "post_processor": None, "decoder": byte_level,
            "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
                      "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False,
                      "ignore_merges": False, "vocab": vocab, "merges": merges}}


TOKENIZER_CONFIG = {"tokenizer_class": "PreTrainedTokenizerFast", "bos_token": "<s>", "eos_token": "</s>",
                    "unk_token": "<unk>", "model_max_length": 4096, "clean_up_tokenization_spaces": False,
                    "add_bos_token": False, "add_eos_token": False}


def write(folder: Path, vocab_size: int) -> None:
    """Write ``tokenizer.json`` and ``tokenizer_config.json`` into the model folder ``folder``."""
    folder = Path(folder)
    (folder / "tokenizer.json").write_text(json.dumps(tokenizer_json(vocab_size), ensure_ascii=False))
    (folder / "tokenizer_config.json").write_text(json.dumps(TOKENIZER_CONFIG, indent=2) + "\n")


def byte_decoder(folder: Path):
    """A client-side ``ids -> text`` for a byte-level BPE ``tokenizer.json`` in ``folder`` (the tiny
    model's, or any GPT-2-style one); None when there is none or it is another kind. Special tokens
    decode to nothing, as the server's ``skip_special_tokens`` does."""
    path = Path(folder) / "tokenizer.json"
    try:
        doc = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    if (doc.get("decoder") or {}).get("type") != "ByteLevel" or (doc.get("model") or {}).get("type") != "BPE":
        return None
    back = {s: b for b, s in byte_symbols().items()}
    special = {t["id"] for t in doc.get("added_tokens", []) if t.get("special")}
    pieces = {i: s for s, i in doc["model"]["vocab"].items()}

    def decode(ids: list[int]) -> str:
        data = bytearray()
        for i in ids:
            if i in special or i not in pieces:
                continue
            data.extend(back[c] for c in pieces[i] if c in back)
        return data.decode("utf-8", errors="replace")
    return decode
