"""From near pairs to groups: verify each pair, cluster, and choose the file to keep.

``groups`` is the face: it indexes each kind's fingerprints, has ``verify`` (documents) or
the picture check decide each candidate pair, clusters the confirmed pairs (``cluster``) and
orders each group around the member ``keeper`` says a person would keep. ``keeper`` is
part of the face too: the keep rules of ``actions.marks`` break their ties with its order,
and the app names its reasons.
"""

#: Modules of this package that other packages may import; the rest are its own.
FACE = ("groups", "keeper")
#: What this package may import inside ``dupfinder.core`` (``root``: model, errors, wording).
MAY_IMPORT = ("root", "fingerprints", "index", "text", "image", "jit")
