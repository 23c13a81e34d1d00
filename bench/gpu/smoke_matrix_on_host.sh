#!/usr/bin/env bash
# On the GPU host, from the repo root (the device tool's working copy; carry .whl for libcst):
#   bench/gpu/smoke_matrix_on_host.sh BUNDLE_DIR [VERSION]   unpack the bundle into /tmp/site, apply
#        dynamic-spec-disable with patchkit, write the tiny model and start the smoke matrix (default
#        matrix, $PARALLEL servers at once on the GPU) in the background
#   bench/gpu/smoke_matrix_on_host.sh                         only wait for the running job and collect
# Each call waits up to $WAIT s (520) and packs what exists into $OUT (at most 8 files):
#   signoff-matrix-V.json  console-matrix-V.txt  logs-matrix-V.tgz  (and, with MODE=mutants,
#   bench/results/smoke-mutants-V.{json,md} + console-mutants-V.txt)
# Env: PARALLEL (6), MODE (matrix | mutants | plan), MUT_JOBS (1: mutant jobs side by side), CELLS ("name1 name2": re-run only these cells, merged
#   into the record), MUTANTS ("a b": only these), SMOKE_EXTRA (more `patchkit smoke` arguments, e.g.
#   "--soak-seconds 20 --skip-stage soak"), MATRIX (a matrix file instead of the default), LAUNCH (a
#   launch command whose cell is added), PREV (a record to merge CELLS into on a fresh host), FRESH=1
#   (unpack the bundle again), WAIT (520), PATCHKIT_SMOKE_WEIGHTS (random[:STD]: seeded random weights
#   instead of SGLang's near-constant dummy ones, see patchkit/smoke/weighthook/). Everything lives in /tmp/smx while the host stays warm;
#   $OUT gets copies at the end of each call.
set -u
. "$(dirname "$0")/host_common.sh"
host_env /tmp/smx
B=${1:-}
if [ -n "$B" ]; then
  host_unpack "$B" "${2:-}" || exit 3
  echo "$V" > $W/version
  ARGS="--target-dir $SITE --tiny --parallel ${PARALLEL:-6} --log-dir $W/logs-$V --signoff $W/signoff-matrix-$V.json"
  [ -n "${PREV:-}" ] && cp "$PREV" $W/signoff-matrix-$V.json   # a record to merge re-run cells into
  [ -n "${MATRIX:-}" ] && ARGS="$ARGS --matrix $MATRIX" || ARGS="$ARGS --matrix default"
  for c in ${CELLS:-}; do ARGS="$ARGS --cell $c"; done
  cat > $W/job.sh <<JOB
cd $PWD
{ nvidia-smi --query-gpu=name,memory.used,memory.total --format=csv; cat $W/apply-$V.txt; date -u
  if [ "${MODE:-matrix}" = mutants ]; then
    # MUT_JOBS jobs side by side, each on its own copy of the target, one merged table
    NAMES="${MUTANTS:-}"
    [ -z "\$NAMES" ] && NAMES=\$(python3 bench/smoke_mutants.py --list)
    J=${MUT_JOBS:-1}; i=0; PIDS=""
    for k in \$(seq 0 \$((J - 1))); do
      rm -rf $SITE-m\$k $W/mut\$k; cp -a $SITE $SITE-m\$k
      MINE=""; i=0; for m in \$NAMES; do [ \$((i % J)) = \$k ] && MINE="\$MINE --mutant \$m"; i=\$((i + 1)); done
      python3 bench/smoke_mutants.py --target-dir $SITE-m\$k --parallel ${PARALLEL:-6} --out $W/mut\$k --log-dir $W/logs-$V/mut\$k \$MINE ${SMOKE_EXTRA:-} > $W/mut-job\$k.txt 2>&1 &
      PIDS="\$PIDS \$!"
    done
    wait \$PIDS
    tail -n 40 $W/mut-job*.txt
    python3 bench/smoke_mutants.py --merge $W/mut*/bench/results/smoke-mutants-$V.json --out $W/mut
    echo "mutants rc=\$?"
  elif [ "${MODE:-matrix}" = plan ]; then
    $PK smoke $ARGS --plan
  else
    $PK smoke $ARGS ${LAUNCH:+--launch-cell "$LAUNCH"} ${SMOKE_EXTRA:-}
    echo "smoke rc=\$?"
  fi
  date -u; ps -eo pid,cmd | grep -c "[s]glang.launch_server"; nvidia-smi --query-gpu=memory.used --format=csv
} > $W/console-${MODE:-matrix}-$V.txt 2>&1
rm -f $W/running
JOB
  setsid nohup bash $W/job.sh > /dev/null 2>&1 &
  echo $! > $W/running
  echo "started ${MODE:-matrix} on $V (pid $!)"
fi
V=$(cat $W/version 2>/dev/null || echo unknown)
end=$((SECONDS + ${WAIT:-520}))
while [ -f $W/running ] && [ $SECONDS -lt $end ]; do sleep 5; done
[ -f $W/running ] && echo "still running after ${WAIT:-520}s: call again without arguments to collect" || echo "done"
for f in $W/console-*-$V.txt; do [ -f "$f" ] && cp "$f" "$OUT/"; done
[ -f $W/signoff-matrix-$V.json ] && cp $W/signoff-matrix-$V.json "$OUT/"
if ls $W/mut/bench/results/smoke-mutants-$V.* > /dev/null 2>&1; then
  mkdir -p "$OUT/bench/results" && cp $W/mut/bench/results/smoke-mutants-$V.* "$OUT/bench/results/"
fi
tar czf "$OUT/logs-matrix-$V.tgz" -C $W logs-$V 2>/dev/null
tail -n 30 $W/console-*-$V.txt 2>/dev/null
