"""Markdown for people (the rules pages, docs/rules/): HTML for the web app and plain
text for the terminal, both by maintained CommonMark parsers (markdown-it-py, rich),
so that a list right after a paragraph, a table or a nested list comes out as
written."""
import io

from markdown_it import MarkdownIt
from mdit_py_plugins.anchors import anchors_plugin

_HTML = MarkdownIt("commonmark").enable("table").use(anchors_plugin, min_level=1, max_level=3)


def to_html(text: str) -> str:
    """The page's HTML; headings carry ids (#masters-and-blitz) to link to."""
    return _HTML.render(text)


def title(text: str) -> str:
    """The first top-level heading's text ('' if none)."""
    return next((line[2:].strip() for line in text.splitlines() if line.startswith("# ")), "")


def to_text(text: str, width: int = 88) -> str:
    """The page as a terminal shows it: headings, lists and tables laid out, no
    Markdown marks, no colour codes."""
    from rich.console import Console
    from rich.markdown import Markdown
    console = Console(file=io.StringIO(), width=width, no_color=True, color_system=None,
                      force_terminal=False, record=True)
    console.print(Markdown(text))
    return "\n".join(line.rstrip() for line in console.export_text(styles=False).splitlines())
