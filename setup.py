"""Builds dupfinder's compiled kernels (Cython) with the package; everything else is in pyproject.toml."""

from __future__ import annotations

import os
import platform
import shutil
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

#: The kernels: one extension module beside the Python module that drives it.
KERNELS = {
    "dupfinder.core.index.kernels": "dupfinder/core/index/kernels.pyx",
    "dupfinder.core.index.kernels_avx2": "dupfinder/core/index/kernels_avx2.pyx",
    "dupfinder.core.text.kernels": "dupfinder/core/text/kernels.pyx",
    "dupfinder.core.grouping.components": "dupfinder/core/grouping/components.pyx",
    "dupfinder.core.image.check_kernels": "dupfinder/core/image/check_kernels.pyx",
    "dupfinder.core.image.hash_kernels": "dupfinder/core/image/hash_kernels.pyx",
    "dupfinder.core.image.direct_kernels": "dupfinder/core/image/direct_kernels.pyx",
    "dupfinder.core.image.hash_kernels_avx2": "dupfinder/core/image/hash_kernels_avx2.pyx",
}
#: The byte-identical scan's listing and first reads: POSIX calls (opendir, fstatat, pread);
#: elsewhere the Python walk answers alone.
if os.name == "posix":
    KERNELS["dupfinder.core.scan.walk_kernels"] = "dupfinder/core/scan/walk_kernels.pyx"
#: Where the shared C header (the bit count) lives.
INCLUDE = "dupfinder/core/jit"
#: ``DUPFINDER_NATIVE=0`` builds no extension (the numpy path only); ``required`` fails the
#: build when a kernel does not compile (CI and the bundles), the default only warns.
MODE = os.environ.get("DUPFINDER_NATIVE", "optional")
#: ``DUPFINDER_NATIVE_CHECKS=1`` compiles bounds checks in (for tests, slower).
CHECKS = os.environ.get("DUPFINDER_NATIVE_CHECKS") == "1"


def _x86() -> bool:
    """Whether the extension is compiled for x86-64 (macOS names its target in ARCHFLAGS)."""
    arch = os.environ.get("ARCHFLAGS", "")
    if sys.platform == "darwin" and arch:
        return "x86_64" in arch and "arm64" not in arch
    return platform.machine().lower() in ("x86_64", "amd64")


#: Modules built for AVX2 CPUs (the loader takes them where the CPU runs them).
AVX2 = {"dupfinder.core.index.kernels_avx2", "dupfinder.core.image.hash_kernels_avx2"}


def _clang() -> str | None:
    """clang, when it is installed and no compiler was named: its vectoriser turns the index's
    loops of bit counts into vector code (gcc 12 leaves them scalar, 1.5x slower at k = 8)."""
    if os.environ.get("CC") or sys.platform != "linux":
        return None
    return shutil.which("clang")


class BuildKernels(build_ext):
    """Compiler flags per compiler: optimised, with the CPU's bit-count instruction on x86-64
    (the x86-64-v2 level numpy's own wheels require) and AVX2 for the ``_avx2`` builds."""

    def finalize_options(self) -> None:
        super().finalize_options()
        if not self.parallel:  # the kernels compile independently: one per core
            self.parallel = os.cpu_count() or 1

    def build_extensions(self) -> None:
        msvc = self.compiler.compiler_type == "msvc"
        clang = None if msvc else _clang()
        if clang is not None:
            self.compiler.set_executable("compiler_so", [clang, *self.compiler.compiler_so[1:]])
            self.compiler.set_executable("linker_so", [clang, *self.compiler.linker_so[1:]])
        flags = ["/O2"] if msvc else ["-O3", "-g0", "-fno-strict-aliasing"]
        if _x86() and not msvc:
            flags += ["-mpopcnt", "-msse4.2"]
        kept = []
        for ext in self.extensions:
            wide: list[str] = []
            if ext.name in AVX2:
                if not _x86():
                    continue  # nothing to choose between on other CPUs
                wide = ["/arch:AVX2"] if msvc else ["-mavx2", "-mfma", "-mbmi", "-mbmi2"]
            ext.extra_compile_args = [*flags, *wide, *ext.extra_compile_args]
            kept.append(ext)
        self.extensions = kept
        super().build_extensions()

    def build_extension(self, ext: Extension) -> None:
        """An optional kernel that cannot be built at all (no C compiler on the machine) is
        left out with a warning: the numpy path runs instead."""
        try:
            super().build_extension(ext)
        except OSError as exc:
            if not ext.optional:
                raise
            self.warn(f"building {ext.name} failed ({exc}); the numpy path will be used")


def _extensions() -> list[Extension]:
    if MODE == "0":
        return []
    sources = {name: path for name, path in KERNELS.items() if os.path.exists(path)}
    extensions = [
        Extension(name, [path], include_dirs=[INCLUDE], optional=MODE != "required")
        for name, path in sources.items()
    ]
    from Cython.Build import cythonize

    return cythonize(  # type: ignore[no-any-return]
        extensions,
        compiler_directives={
            "language_level": 3,
            "boundscheck": CHECKS,
            "wraparound": False,
            "cdivision": True,
            "initializedcheck": CHECKS,
            "embedsignature": True,
        },
        quiet=True,
    )


setup(ext_modules=_extensions(), cmdclass={"build_ext": BuildKernels})
