# Shared by bin/serve and bin/test: find Python 3.12+, make .venv, install the pinned packages.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

find_python() {
  local candidate
  for candidate in python3.13 python3.12; do
    if command -v "$candidate" >/dev/null 2>&1 && "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null; then
      command -v "$candidate"; return 0
    fi
  done
  if command -v pyenv >/dev/null 2>&1; then
    local root; root="$(pyenv root)"
    for candidate in "$root"/versions/3.1[3-9]*/bin/python3 "$root"/versions/3.12*/bin/python3; do
      if [ -x "$candidate" ]; then echo "$candidate"; return 0; fi
    done
  fi
  if command -v python3 >/dev/null 2>&1 && python3 -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null; then
    command -v python3; return 0
  fi
  return 1
}

if [ ! -x .venv/bin/python ]; then
  PYTHON="$(find_python)" || {
    echo "error: Python 3.12 or newer is needed (Django 6.1 refuses older ones)." >&2
    echo "Install python3.12 or python3.13, or a pyenv version, and run this again." >&2
    exit 1
  }
  echo "Using $PYTHON to create .venv"
  "$PYTHON" -m venv .venv
fi
VENV_PY="$ROOT/.venv/bin/python"

# Reinstall only when requirements.txt changed since the last successful install.
stamp=".venv/.requirements.sha256"
want="$(sha256sum requirements.txt | cut -d' ' -f1)"
if [ "$(cat "$stamp" 2>/dev/null || true)" != "$want" ]; then
  "$VENV_PY" -m pip install --quiet --upgrade pip
  "$VENV_PY" -m pip install --quiet -r requirements.txt
  echo "$want" > "$stamp"
fi
"$VENV_PY" manage.py compile_translations >/dev/null
