"""``python -m throttlelab`` is the CLI."""

from throttlelab.cli import main

raise SystemExit(main())
