"""Players, exact regret against the table, matches, reports (not built yet: issue 7)."""
