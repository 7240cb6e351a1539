#!/usr/bin/env bash
# README's test command as CI runs it (no GPU: gpu and torch tests deselected), spread over the host's
# cores: lit -j, then one pytest process per test file (largest first). Failures' summaries printed;
# logs in $OUT/cpu-tests.log.
set -uo pipefail
b=$(date +%s)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null
export PYTHONPATH=/tmp/site:$PWD PATH=/tmp/site/bin:$PATH CUDA_VISIBLE_DEVICES= TILEC_CACHE_DIR=/tmp/cpu-cache
python3 -m pip install -q --no-index --no-deps --no-build-isolation -e . >/dev/null 2>&1 || echo "editable install failed"
P=${CPUP:-24}
mkdir -p /tmp/ct
lit -q -j $P --order=lexical tests/filecheck > /tmp/ct/lit.log 2>&1; echo "lit rc $? $(( $(date +%s) - b )) s"
tail -5 /tmp/ct/lit.log
ls -S $(find tests -name 'test_*.py' -not -path 'tests/gpu/*') tests/gpu/test_*.py | \
  xargs -P $P -I{} sh -c 'f={}; n=$(echo $f | tr / _); python3 -m pytest -q -p no:cacheprovider -m "not gpu and not torch" $f > /tmp/ct/$n.log 2>&1; echo "$? $f" >> /tmp/ct/rc.txt'
echo "pytest files $(wc -l < /tmp/ct/rc.txt), failed $(grep -vc '^[05] ' /tmp/ct/rc.txt) ($(( $(date +%s) - b )) s)"
for f in $(grep -v '^[05] ' /tmp/ct/rc.txt | cut -d' ' -f2); do n=$(echo $f | tr / _); echo "== $f"; grep -E "^(FAILED|ERROR)|Error" /tmp/ct/$n.log | head -8 | cut -c1-300; done
cat /tmp/ct/*.log > ${OUT:-/tmp}/cpu-tests.log 2>/dev/null
grep -h -E "passed|failed" /tmp/ct/*.log | awk '{for(i=1;i<NF;i++){if($(i+1)~/^passed/)p+=$i; if($(i+1)~/^failed/)f+=$i; if($(i+1)~/^skipped/)s+=$i}} END{print "total passed",p,"failed",f,"skipped",s}'
