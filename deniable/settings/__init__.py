"""Settings: ``base`` (embedded defaults, from the environment), ``test``, ``prod``."""
