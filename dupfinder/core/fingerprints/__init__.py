"""One file in, one outcome out: everything a scan's worker processes import.

``worker`` fingerprints a file (with a per-file time limit) into a ``FingerprintOutcome``;
``formats`` says what kind a file is (music and videos are compared by content only where
FFmpeg is found); ``columns`` holds a scan's files and outcomes as compact arrays; ``digest`` is the content digest shared with the byte-identical pass and the
actions; ``quiet`` and ``priority`` set a worker up. Nothing here imports the grouping or
scipy, so a worker process starts light.
"""

#: Modules of this package that other packages may import; the rest are its own.
FACE = ("worker", "formats", "columns", "digest", "quiet", "priority", "heap")
#: What this package may import inside ``dupfinder.core`` (``root``: model, errors, wording).
MAY_IMPORT = ("root", "jit", "extract", "text", "image", "media")
