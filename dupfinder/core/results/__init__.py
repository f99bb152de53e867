"""A scan's result on disk and back: the JSON contract, CSV, text, sessions, decisions.

``report`` writes results (JSON, CSV, a table) and loads them through ``reader``, which
trusts nothing in a file; ``session`` keeps results with the user's marks; ``decisions``
remembers "not a duplicate" by content. What is written never depends on how files were found.
"""

#: Modules of this package that other packages may import; the rest are its own.
FACE = ("report", "session", "decisions")
#: What this package may import inside ``dupfinder.core`` (``root``: model, errors, wording).
MAY_IMPORT = ("root",)
