"""LLM extractors behind the extraction pipeline's interface (SDKs imported lazily)."""
