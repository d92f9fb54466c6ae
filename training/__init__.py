"""Lightning MLP value nets that imitate the table (not built yet: issue 5)."""
