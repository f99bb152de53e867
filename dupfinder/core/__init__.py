"""The headless engine: walking, fingerprinting, indexing, clustering and actions.

Nothing under ``dupfinder.core`` imports Qt; a test proves it.
"""
