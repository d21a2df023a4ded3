"""The privacy engine.

Pure, typed math modules with no Django import (``rr``, ``noise``, ``calibrate``, ``accounting``)
sit beside the Django parts (``models``, ``services``, ``selectors``, ``tasks``, ``api``).
"""
