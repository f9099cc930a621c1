"""The validate gates: one module per store over the shared rules in ``gates.rules``."""
