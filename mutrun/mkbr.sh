#!/usr/bin/env bash
# archives of each helper's branch HEAD into mutrun/br/NAME, their snippets into mutrun/br/NAME.gpu
cd /work/main && rm -rf mutrun/br && mkdir -p mutrun/br
for n in "$@"; do
  [ -f /work/wt/$n.gpu ] || continue
  mkdir -p mutrun/br/$n
  git -C /work/wt/$n archive HEAD -- . ':(exclude)docs' ':(exclude)tests/filecheck' ':(exclude)benchmarks/NOTES.md' ':(exclude)CHANGELOG.md' | tar -x -C mutrun/br/$n
  cp /work/wt/$n.gpu mutrun/br/$n.gpu
  echo "$n $(git -C /work/wt/$n rev-parse --short HEAD)"
done
du -sh mutrun/br
