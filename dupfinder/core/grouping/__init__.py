"""From near pairs to groups: verify each pair, cluster, and choose the file to keep.

``groups`` is the face: it indexes each kind's fingerprints, has ``verify`` (documents),
the picture check or ``media_check`` (music and videos) decide each candidate pair,
clusters the confirmed pairs (``cluster``) and orders each group around the member
``keeper`` says a person would keep. ``keeper`` is part of the face too: the keep rules of
``actions.marks`` break their ties with its order, and the app names its reasons.
``media_check`` also answers "files like this one" for a song or a video, and
``media_facts`` reads what a person compares media copies by (duration, bitrate, tags).
"""

#: Modules of this package that other packages may import; the rest are its own.
FACE = ("groups", "keeper", "media_check", "media_facts")
#: What this package may import inside ``dupfinder.core`` (``root``: model, errors, wording).
MAY_IMPORT = ("root", "fingerprints", "index", "text", "image", "media", "jit")
