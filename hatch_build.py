"""Build hook: compile ``validator/scoring/_fastcalls.c`` (the scorer's reader of the common answer
shape) into the wheel, or next to its source for an editable install.

The extension is an accelerator, not a requirement: ``validator.scoring.parse`` reads every
answer without it. So a machine without a C compiler still installs callbank — the build says
it went without, and the package is then pure Python. setuptools does the compiling because it
knows every platform's compiler and flags (``build-system.requires``).
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

EXTENSION = "validator.scoring._fastcalls"
SOURCE = "validator/scoring/_fastcalls.c"


class CustomBuildHook(BuildHookInterface):
    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel":
            return
        root = Path(self.root)
        if version == "editable":
            built = self._compile(root, root)  # next to the source, where the editable install imports from
            if built is not None:
                build_data["pure_python"] = False
                build_data["infer_tag"] = True
            return
        self._build_dir = Path(tempfile.mkdtemp(prefix="callbank-build-"))
        built = self._compile(root, self._build_dir)
        if built is not None:
            build_data["pure_python"] = False
            build_data["infer_tag"] = True
            build_data["force_include"][str(built)] = str(built.relative_to(self._build_dir))

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        build_dir = getattr(self, "_build_dir", None)
        if build_dir is not None:
            shutil.rmtree(build_dir, ignore_errors=True)

    def _compile(self, root: Path, destination: Path) -> Path | None:
        """The built extension's path under destination, or None (with a warning) when it cannot be built."""
        try:
            from setuptools import Distribution, Extension
            from setuptools.command.build_ext import build_ext

            distribution = Distribution({"name": "callbank", "ext_modules": [Extension(EXTENSION, [SOURCE])]})
            distribution.script_name = "hatch_build.py"
            command = build_ext(distribution)
            command.build_lib = str(destination)
            command.build_temp = str(Path(tempfile.mkdtemp(prefix="callbank-objects-")))
            command.ensure_finalized()
            command.run()
            return destination / command.get_ext_filename(EXTENSION)
        except Exception as error:  # any compiler failure leaves the pure-Python reader, said out loud
            self.app.display_warning(
                f"callbank: the compiled answer reader ({SOURCE}) was not built ({type(error).__name__}: {error}); "
                "scoring works without it, only slower"
            )
            return None
