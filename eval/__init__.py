"""Players, exact regret against the table, matches, reports."""
if __name__ == "eval":   # the old import path: the same modules as tabula.eval
    from tabula.infra.old_import_paths import hand_over
    hand_over(__name__)
