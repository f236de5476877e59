#!/usr/bin/env bash
# Strip notebook outputs on commit: nbstripout as a git clean filter (idempotent).
#   scripts/install_git_filter.sh PYTHON   PYTHON: the environment's interpreter (has nbstripout)
# Sets filter.nbstripout.* and diff.ipynb.textconv in this clone's .git/config, pointing at PYTHON;
# the `*.ipynb filter=nbstripout` lines are in the tracked .gitattributes. Saving a notebook in
# JupyterLab keeps its outputs in your copy; a commit stores it without them.
set -euo pipefail
py=${1:?usage: install_git_filter.sh PYTHON}
t0=$(date +%s)
if ! git rev-parse --git-dir >/dev/null 2>&1; then
  echo "git filter: not a git checkout, nothing to install (0 s)"; exit 0
fi
py=$(cd "$(dirname "$py")" && pwd)/$(basename "$py")
cd "$(git rev-parse --show-toplevel)"
want="\"$py\" -m nbstripout"
if [ "$(git config --local --get filter.nbstripout.clean || true)" = "$want" ] \
   && [ "$(git config --local --get diff.ipynb.textconv || true)" = "$want -t" ] \
   && grep -qx '\*.ipynb filter=nbstripout' .gitattributes 2>/dev/null; then
  echo "git filter: nbstripout already strips notebook outputs on commit (0 s)"; exit 0
fi
"$py" -m nbstripout --install --python "$py" --attributes .gitattributes
echo "git filter: nbstripout strips notebook outputs on commit, installed in $(( $(date +%s) - t0 )) s"
