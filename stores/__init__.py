"""Memory store adapters (one module per store); see README "Stores"."""
