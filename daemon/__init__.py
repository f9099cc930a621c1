"""dreamd: the memory daemon for AI coding agents."""

__version__ = "0.1.0"
