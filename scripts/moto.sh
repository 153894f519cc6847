#!/usr/bin/env bash
# Installs moto's standalone server (the local IAM/STS endpoint the tests/iam_*.rs suites
# use) into a virtualenv, once. Idempotent: a venv that already has the pinned version is
# left as it is. Prints the path of the moto_server executable on stdout.
#
#   MOTO_VENV   where the venv lives (default: ~/.cache/zoneguard/moto-venv)
#   PYTHON      the interpreter to build it with (default: python3)
set -euo pipefail

MOTO_VERSION="5.2.5"
venv="${MOTO_VENV:-${HOME}/.cache/zoneguard/moto-venv}"
python="${PYTHON:-python3}"
server="${venv}/bin/moto_server"
stamp="${venv}/.zoneguard-moto-${MOTO_VERSION}"

if [[ -x "${server}" && -f "${stamp}" ]]; then
  echo "${server}"
  exit 0
fi

mkdir -p "$(dirname "${venv}")"
if [[ ! -x "${venv}/bin/python" ]]; then
  "${python}" -m venv "${venv}" >&2
fi
"${venv}/bin/python" -m pip install --quiet --disable-pip-version-check \
  "moto[server]==${MOTO_VERSION}" >&2
"${venv}/bin/python" -c "import moto; assert moto.__version__ == '${MOTO_VERSION}', moto.__version__" >&2
touch "${stamp}"
echo "${server}"
