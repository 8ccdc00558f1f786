#!/bin/sh
# Runs every Python unittest under Plugins/ and Examples/ (files named test_*.py), one directory at a time so each
# test finds the modules next to it. `make test` calls this; exit status non-zero when any test fails.
# The Python SDK is on PYTHONPATH, as if pip had installed it (Plugins/sdk/python/test_packaging.py checks that it
# does), so a test imports it the way a plugin author's does.
set -eu
cd "$(dirname "$0")/.."
export PYTHONPATH="$PWD/Plugins/sdk/python${PYTHONPATH:+:$PYTHONPATH}"
status=0
for dir in $(find Plugins Examples -name 'test_*.py' -exec dirname {} \; | sort -u); do
    echo "python tests: $dir"
    python3 -m unittest discover -s "$dir" -p 'test_*.py' || status=1
done
exit $status
