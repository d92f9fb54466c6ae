"""YAML read as data and nothing more: the safe loader (no tags that build objects),
no anchors or aliases (a few lines of aliases can expand to billions of nodes) and a
bounded depth (a file nested thousands deep exhausts Python's recursion). Every YAML
file tabula reads (pipeline configs, distillation recipes, a run's config.yaml)
goes through here."""
import yaml

MAX_DEPTH = 50   # nested mappings and lists; tabula's files use at most 4


class PlainLoader(yaml.SafeLoader):
    """The safe loader, refusing aliases and nesting deeper than MAX_DEPTH."""

    def __init__(self, stream):
        super().__init__(stream)
        self.depth = 0

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise yaml.composer.ComposerError(
                None, None, "anchors and aliases (*name) are not read here: write the "
                "values out", event.start_mark)
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise yaml.composer.ComposerError(
                None, None, f"nested more than {MAX_DEPTH} deep", self.peek_event().start_mark)
        try:
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1


def load_yaml(text: str):
    """The data `text` writes in YAML, else a yaml.YAMLError saying why."""
    return yaml.load(text, Loader=PlainLoader)   # PlainLoader is a SafeLoader
