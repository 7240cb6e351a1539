# Sourced by the device scripts from the repository root: the wheels the GPU image lacks
# (carried in .whl/, ../shared/tools/device-wheels.sh) into /tmp/site, then tilec itself,
# editable, with the machine's own setuptools (it reaches no package index).
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null || echo "wheel install failed"
export PYTHONPATH=/tmp/site:$PWD PATH=/tmp/site/bin:$PATH
python3 -m pip install -q --no-index --no-deps --no-build-isolation -e . >/dev/null 2>&1 || echo "editable install failed"
