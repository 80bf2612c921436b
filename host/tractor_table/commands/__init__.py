"""One module per ``tractor-table`` command: ``configure(parser)`` and ``run(args)``."""
