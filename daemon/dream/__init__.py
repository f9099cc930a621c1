"""The dream: deterministic consolidation of agent memory folders (seeds 000, 001, 003, 004).

Pure rule modules (inventory, refs, staleness, similarity, index, checks)
decide; ``gardener`` orchestrates load, decide, execute, report; ``execute``
is the only module that moves or writes memory files.
"""
