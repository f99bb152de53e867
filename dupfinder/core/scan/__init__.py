"""A scan from folders to a result: the pipeline and everything only it needs.

``pipeline.run`` is the one entry point the CLI and the app share: ``walk`` lists files once
per (device, inode) through ``patterns``; ``cache`` answers for unchanged files; the
fingerprinting runs in worker processes; ``identical`` (with ``identical_cache`` and
``identical_groups``) finds byte-identical files; the grouping runs here or, beside a window,
in a process of its own (``isolated``). ``similar`` answers "files like this one".
``exact_only`` is the entry of a scan for byte-identical files alone: without the cache it
walks, reads (``byte_reads``) and groups without numpy, the way jdupes does.
"""

#: Modules of this package that other packages may import; the rest are its own.
FACE = ("pipeline", "exact_only", "walk", "cache", "identical", "similar")
#: What this package may import inside ``dupfinder.core`` (``root``: model, errors, wording).
MAY_IMPORT = (
    "root",
    "extract",
    "text",
    "image",
    "media",
    "fingerprints",
    "index",
    "grouping",
    "jit",
    "results",
)
