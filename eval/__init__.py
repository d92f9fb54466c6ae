"""Players, exact regret against the table, matches, reports."""
