"""LLM translators: any litellm model (``--model PROVIDER/MODEL``), a local GGUF model
(``--model local``), reflection on the target engine's errors (``--reflection K``).

Nothing here imports litellm at import time: only a translator that calls a model does.
"""
