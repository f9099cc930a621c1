"""LLM extractors behind the extraction pipeline's interface (SDKs imported lazily).

``build_extractor`` makes the configured one: ``openai`` (any server speaking
OpenAI's chat-completions protocol), ``anthropic`` (the Messages API) or
``command`` (a headless agent CLI). Modules: ``schema`` (answer types and
validation), ``prompting`` (the requests), ``records`` (answers to items),
``extractor`` (the pipeline over a backend), ``backend`` (the contract and its
failures) and one module per backend.
"""

from dreamd.collect.llm.extractor import LlmExtractor
from dreamd.collect.llm.factory import build_extractor

__all__ = ["LlmExtractor", "build_extractor"]
