"""``python -m tractor_table.hardware``: :func:`.generate.main`."""

from .generate import main

raise SystemExit(main())
