"""YAML front matter as the stores and the dream read it: one safe loader, loaded on first use.

A command that reads no front matter through YAML (``status``, a dream of
folders whose front matters are plain ``key: value`` lines and whose inboxes are
empty) never imports YAML.
"""

from __future__ import annotations

__all__ = ["safe_yaml"]


def safe_yaml(text: str) -> object:
    """``text`` loaded as YAML by a safe loader (no object construction; libyaml's where it
    is installed: ten thousand front matters in a fraction of a second); raises
    ``ValueError`` when it is no valid YAML."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        return yaml.load(text, Loader=loader)
    except (yaml.YAMLError, ValueError, TypeError, RecursionError) as error:
        raise ValueError(f"not valid YAML: {error}") from None
