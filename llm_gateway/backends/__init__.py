"""Gateway backends: each turns a GenerationRequest into a GenerationResult."""
