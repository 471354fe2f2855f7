"""The tests run against the installed wheel (scripts/test-wheel.sh), never
the source tree: a test that passed on src/ would say nothing about what users
install."""

from __future__ import annotations

import sys
from pathlib import Path

import countersign
import countersign.mcp

SRC = Path(__file__).resolve().parents[1] / "src"


def test_countersign_is_imported_from_site_packages_not_src() -> None:
    for module in (countersign, countersign.mcp):
        path = Path(module.__file__ or "").resolve()
        assert "site-packages" in path.parts, path
        assert SRC not in path.parents, path
    assert str(SRC) not in sys.path


def test_the_wheel_ships_its_type_marker() -> None:
    assert (Path(countersign.__file__ or "").parent / "py.typed").is_file()
