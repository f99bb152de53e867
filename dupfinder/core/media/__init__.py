"""Music and video fingerprints and their checks.

Decoding goes through the ``ffmpeg`` and ``ffprobe`` programs, run as child processes under a
time limit, an output cap and (POSIX) a memory limit (``tools``): a separate program the user
installs is not linked into the bundles, so no GPL codec ships with them. ``info`` reads what
a file is (duration, codecs, bitrate, tags); ``audio`` and ``video`` make a print of a file (a
64-bit SimHash for the index, SimHashes of overlapping windows so a clip meets its longer
original, and the sequence the check aligns) and ``compare`` two sequences into a ``match``;
``waveform`` draws peaks and cuts a few seconds to play for the app.
"""

#: Modules of this package that other packages may import; the rest are its own.
FACE = ("tools", "info", "audio", "video", "match", "waveform")
#: What this package may import inside ``dupfinder.core`` (``root``: model, errors, wording).
MAY_IMPORT = ("root", "image", "jit")
