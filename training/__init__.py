"""Lightning MLP value nets that imitate the table."""
