"""Pictures as fingerprints: one decode, a 64-bit perceptual hash, and the second check.

``perceptual`` decodes (drafted JPEG, HEIF, upright, alpha flattened) and hashes, its hashes
compiled in ``hash_kernels`` (``hashes`` picks the engine), a plain PNG read from its bytes by
``png`` (libdeflate's inflate, compiled unfiltering), PNG and WebP otherwise read by the leaner
decoders of ``decoders`` where they give Pillow's pixels, a small picture's steps taken
straight from its pixels by ``direct`` (compiled in ``direct_kernels``); ``check`` compares small
thumbnails of two pictures to confirm or reject a pair the index proposed, with its block
comparisons compiled in ``check_kernels``.
"""

#: Modules of this package that other packages may import; the rest are its own.
FACE = ("perceptual", "check")
#: What this package may import inside ``dupfinder.core`` (``root``: model, errors, wording).
MAY_IMPORT = ("root", "jit")
