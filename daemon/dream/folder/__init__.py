"""Rules the dream applies to one memory folder: inventory, references, staleness, similarity,
the index and its budget, drift checks. Pure functions over the folder as read."""
