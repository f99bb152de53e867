"""The headless engine: walking, fingerprinting, indexing, grouping, results and actions.

One package per concern; each package's ``__init__`` names its job, the modules others may
import (``FACE``) and the packages it may import itself (``MAY_IMPORT``), and a test holds
every import to them. The root modules (``model``, ``errors``, ``wording``, ``filesystem``)
import nothing else in core. Nothing under ``dupfinder.core`` imports Qt; a test proves that too. The map,
the data flow and the layers: ``docs/ARCHITECTURE.md``.
"""

#: Root modules: value types, the error tree, the wording of sizes, counts and OS errors,
#: and the facts about file systems that decide what a name means.
ROOT_MODULES = ("model", "errors", "wording", "filesystem")
#: Packages, each leaning only on those before it (``scan`` and ``actions`` on several).
PACKAGES = (
    "jit",
    "extract",
    "text",
    "image",
    "media",
    "fingerprints",
    "index",
    "grouping",
    "scan",
    "results",
    "actions",
)
