"""Stores through the instance's ``__dict__`` (or its ``__setattr__`` called by name) under a literal
name are stores of that name:
``self.__dict__.setdefault("_media_checks", {})`` (unsloth-zoo 2026.10.9's ``_QwenModel._reads``;
a false PK003 of set AK) and ``self.__dict__["x"] = v`` (which used to open the whole class). A
computed name still makes the class dynamic. ``self.__setattr__("mask", v)`` is ``self.mask = v``
spelled out (demucs 4.1.0's ``CrossTransformerEncoderLayer``; a false PK003 of set AL)."""
from __future__ import annotations

import pytest

from patchkit.analysis import analyse_source

MODEL = '''
class Model:
    def __init__(self, n):
        self.n = n
        {store}

    def checks(self):
        return self._media_checks

    def other(self):
        return self.never_set
'''


def _found(src):
    return {(f.code, f.attr) for f in analyse_source("m.py", src) if f.severity.value in ("error", "warning")}


@pytest.mark.parametrize("store", ['self.__dict__.setdefault("_media_checks", {})',
                                   'self.__dict__["_media_checks"] = {}',
                                   'self.__setattr__("_media_checks", {})'])
def test_a_literal_dict_store_assigns_the_name_and_keeps_the_class_closed(store):
    got = _found(MODEL.format(store=store))
    assert ("PK003", "_media_checks") not in got
    assert ("PK003", "never_set") in got  # the class stays closed: other names are still judged


def test_a_store_in_a_later_method_is_two_phase_not_never_assigned():
    src = MODEL.format(store="pass") + '''
    def prepare(self):
        self.__dict__.setdefault("_media_checks", {})
'''
    got = _found(src)
    assert ("PK003", "_media_checks") not in got and ("PK004", "_media_checks") in got


@pytest.mark.parametrize("store", ['self.__dict__.setdefault(name, {})', 'self.__dict__[name] = {}',
                                   'self.__setattr__(name, {})'])
def test_a_computed_name_opens_the_class(store):
    src = MODEL.format(store=f"name = str(n)\n        {store}")
    assert ("PK003", "never_set") not in _found(src)


def test_the_instance_dict_held_in_a_local_keeps_the_class_dynamic():
    """pyomo's kernel ``block.__init__``: ``d = self.__dict__; d['_block__order'] = dict()``; the
    walk does not follow stores through the local, so the class stays dynamic (not a false PK003
    on ``self.__order``, which the review of session 32's labelled diff found)."""
    src = MODEL.format(store='d = self.__dict__\n        d["_media_checks"] = {}')
    got = _found(src)
    assert ("PK003", "_media_checks") not in got and ("PK003", "never_set") not in got


def test_reading_the_instance_dict_through_a_local_stores_nothing():
    """mmdet's ``SamplingResult.info`` reads ``_dict = self.__dict__`` and deepchem's featurizers
    read ``self.__dict__[arg_name]``: neither writes, so the class stays closed and its real
    findings stay (a first version of the rule above lost two real groups in deepchem)."""
    src = MODEL.format(store="d = self.__dict__\n        print(d.get('n'))")
    assert ("PK003", "never_set") in _found(src)
    src = MODEL.format(store="value = self.__dict__['n']")
    assert ("PK003", "never_set") in _found(src)


def test_rebinding_the_keys_the_dict_already_has_stores_nothing_new():
    """mmdet's ``SamplingResult.to``: ``_dict = self.__dict__; for key, value in _dict.items():
    _dict[key] = value.to(device)`` moves existing attributes only."""
    src = MODEL.format(store="d = self.__dict__\n        for key, value in d.items():\n            d[key] = value")
    assert ("PK003", "never_set") in _found(src)


def test_a_branch_store_by_setattr_call_is_judged_like_the_assignment():
    """demucs: ``if sparse and not auto_sparsity: self.__setattr__("mask", ...)`` in ``__init__``:
    the same findings as ``self.mask = ...`` there (no PK003 for ``mask``; the class stays closed)."""
    src = """
class Layer:
    def __init__(self, sparse, auto):
        self.sparse = sparse
        self.auto = auto
        if sparse and not auto:
            {store}

    def forward(self):
        if self.sparse and not self.auto:
            return self.mask
        return self.unset
"""
    by_call = _found(src.format(store='self.__setattr__("mask", 1)'))
    assert by_call == _found(src.format(store="self.mask = 1"))
    assert ("PK003", "mask") not in by_call and ("PK003", "unset") in by_call
