"""The desktop app's state and rules, without Qt.

Everything a window decides lives here: the listing (filter, sort, stable group numbers), the
marks and keepers, what is enabled, the undo history, the jobs and their kinds. The Qt
widgets in ``dupfinder.gui`` only draw this state and forward clicks, so the app's logic is
tested with a fake view and jobs run synchronously (``tests/app``), with no display and no
PySide6 import.
"""
