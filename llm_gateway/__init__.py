"""llm_gateway package."""
