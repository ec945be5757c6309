"""A bounded mutation fuzzer of `convert` (bench/fuzz_convert.py runs the same one longer).

The bundled fixtures -- and the real-world corpus in ../shared/corpus when it is there -- are damaged at
random with a fixed seed (lines deleted, duplicated, swapped, truncated; `<`, `>`, quotes, `${X}`, huge
numbers, non-ASCII and NUL bytes inserted; sections nested and left open) and each is converted in a worker
process with a deadline. Every conversion must end in a translation crossplane parses or in the product's
own fatal diagnostics: no exception escaping `convert`, no hang, no output nginx's parser refuses.
"""
from __future__ import annotations

import importlib.util
import sys
import time

import pytest

from conftest import CORPUS, ROOT

SECONDS = 25          # per source set (a deadline: the whole module stays under a minute)
PER_INPUT = 10        # seconds one conversion may take before it counts as a hang


def _fuzzer():
    spec = importlib.util.spec_from_file_location("fuzz_convert", ROOT / "bench" / "fuzz_convert.py")
    module = sys.modules.get(spec.name)
    if module is None:
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module       # dataclasses look their module up while the class is made
        spec.loader.exec_module(module)
    return module


def _run(files, seed: int, count: int):
    fuzz = _fuzzer()
    report = fuzz.fuzz(files, count, seed, timeout=PER_INPUT, jobs=1, deadline=time.monotonic() + SECONDS)
    assert report.inputs >= min(count, 20), report.text()
    assert report.failures == 0, report.text()
    return report


def test_mutated_fixtures_convert_or_fail_cleanly():
    fuzz = _fuzzer()
    files = fuzz.fixture_inputs()
    assert files
    _run(files, seed=20240501, count=2000)


def test_mutated_corpus_inputs_convert_or_fail_cleanly():
    if not CORPUS.is_dir():
        pytest.skip(f"the real-world corpus is not at {CORPUS} (a sibling checkout ../shared/corpus)")
    fuzz = _fuzzer()
    files = fuzz.corpus_inputs(CORPUS)
    assert files
    _run(files, seed=20240502, count=2000)
