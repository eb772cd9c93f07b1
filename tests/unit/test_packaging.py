"""The wheel holds the product and nothing else: no dev stack, no tools, no tests."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("pyproject.toml", "README.md", "memory_extproc")


def test_the_wheel_holds_only_the_product(tmp_path: Path) -> None:
    tree = tmp_path / "src"
    tree.mkdir()
    for name in SOURCES:  # a copy: building in place would leave build/ in the checkout
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, tree / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(source, tree / name)
    for name in ("devstack", "bench", "eval", "scenarios", "chaos", "tests"):
        shutil.copytree(ROOT / name, tree / name, ignore=shutil.ignore_patterns("__pycache__"))
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
         "--wheel-dir", str(tmp_path / "dist"), str(tree)],
        check=True, capture_output=True, timeout=120,
    )  # fmt: skip
    (wheel,) = (tmp_path / "dist").glob("memory_extproc-*.whl")
    tops = {name.split("/")[0] for name in zipfile.ZipFile(wheel).namelist()}
    assert tops == {"memory_extproc", wheel.name.split("-py")[0] + ".dist-info"}
    names = zipfile.ZipFile(wheel).namelist()
    assert "memory_extproc/server.py" in names
    assert "memory_extproc/worker/main.py" in names
    assert not [n for n in names if "devstack" in n or "mock_llm" in n or "local_llm" in n]
