"""Bias measures: one module per paper's family, pure functions over records returning MeasureResult (METHODS §3–§5)."""
