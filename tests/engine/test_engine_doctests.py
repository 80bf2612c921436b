"""The examples in the engine's docstrings are run and must hold."""

from __future__ import annotations

import doctest
import importlib

import pytest

#: module -> does it have examples
MODULES = {"cards": True, "rules": True, "order": True, "play": True, "units": False, "hand": True}


@pytest.mark.parametrize("name", sorted(MODULES))
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(f"shengji.{name}")
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
    assert (result.attempted > 0) == MODULES[name]
