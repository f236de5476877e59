#!/usr/bin/env python3
"""A one-node Kubernetes cluster on this machine (see tlnode/__init__.py).

    cluster.py up         start it (no-op when it runs); last lines PROMETHEUS=... and KUBECONFIG=...
    cluster.py down       stop it and remove everything it made
    cluster.py status     print the status; exit 0 when ready, 3 when not running
    cluster.py leftovers  list what of it is still on the machine; exit 1 when anything is
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from tlnode.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
