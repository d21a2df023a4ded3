"""Central differential privacy: noise, events, accounting, calibration, sensitivity, estimates.

Import the modules themselves (``from dpcore.central import accounting``); this package exports
nothing of its own.
"""
