"""The wheel build compiles the merge loop when a C compiler works (a platform wheel), else builds
the pure-Python wheel, whose training runs the same loop in Python. Editable installs get the
compiled module in the source tree (git ignores it)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


class MergeLoopHook(BuildHookInterface):  # type: ignore[type-arg]
    """Adds ``tokviz/core/training/_mergeloop*.so`` to the wheel when it compiles."""

    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel":
            return
        root = Path(self.root)
        spec = importlib.util.spec_from_file_location("tokviz_build_ext", root / "packaging" / "build_ext.py")
        assert spec is not None and spec.loader is not None
        build_ext = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(build_ext)
        in_tree = root / build_ext.SOURCE.parent
        out_dir = in_tree if version == "editable" else Path(self.directory) / ".merge-loop"
        built, why = build_ext.build_merge_loop(root, out_dir)
        if built is None:
            print(
                f"tokviz: the compiled merge loop is not built ({why}); training runs the pure-Python loop",
                file=sys.stderr,
            )
            return
        build_data["pure_python"] = False
        build_data["infer_tag"] = True
        if version != "editable":
            build_data["force_include"][str(built)] = f"{build_ext.SOURCE.parent.as_posix()}/{built.name}"

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        """The compiled module of a regular wheel was built beside it: remove the scratch copy."""
        scratch = Path(self.directory) / ".merge-loop"
        for leftover in scratch.glob("*"):
            leftover.unlink()
        if scratch.exists():
            scratch.rmdir()
