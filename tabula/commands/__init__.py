"""One module per `tabula` subcommand; each offers add_parser(subparsers)."""
