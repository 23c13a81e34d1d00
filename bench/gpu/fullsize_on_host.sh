#!/usr/bin/env bash
# Full-size smoke (issue 19): a built-in full-size shape with dummy bf16 weights and its EAGLE-3 draft
# (`patchkit smoke --model-config NAME [--layers N] --tp T`). Modelled on smoke_matrix_on_host.sh.
# On the GPU host, from the repo root (the device tool's working copy; carry the bundle and .whl):
#   bench/gpu/fullsize_on_host.sh BUNDLE_DIR [VERSION]   unpack the bundle into /tmp/site (once), apply
#        dynamic-spec-disable with patchkit, start the smoke run in the background
#   bench/gpu/fullsize_on_host.sh                         only wait for the running job and collect
# Each call waits up to $WAIT s (520) and copies what exists into $OUT:
#   signoff-$TAG.json  console-$TAG.txt  smi-$TAG.csv (nvidia-smi every 2 s)  logs-$TAG.tgz
#   where TAG = $MODE-$MODEL-L$LAYERS-tp$TP-$VERSION
# Env: MODEL (llama3-70b | qwen3-30b-a3b), LAYERS (empty: all), TP (1), MODE (single | matrix | dp | plan),
#   CELLS ("a b": matrix cells to run), PARALLEL (1), SMOKE_EXTRA (more `patchkit smoke` arguments),
#   TIMEOUT (1200 s to ready), FRESH=1 (unpack again), WAIT (520).
#
# The three runs of issue 19 (0.5.16 bundle, patch 2.0; each line is one device call of at most 600 s;
# call the script again without arguments until it prints "done"):
# (a) one H200, tp 1, the 70B shape cut to 40 of 80 layers (73.7 GiB of weights with the draft):
#       MODEL=llama3-70b LAYERS=40 TP=1 bench/gpu/fullsize_on_host.sh .gpu-bundle16 0.5.16
#     kind nvidia-h200; expect ready in 3-5 min, the whole run 6-9 min; peak about 120-127 GiB on GPU 0
#     (--mem-fraction-static 0.85 of 140 GiB for weights + KV pool, plus CUDA graphs and activations)
# (b) two H200s, tp 2, all 80 layers (68.7 GiB of weights per GPU):
#       MODEL=llama3-70b TP=2 bench/gpu/fullsize_on_host.sh .gpu-bundle16 0.5.16
#     kind nvidia-h200-x2; same timings; peak about 120-127 GiB on each of GPU 0 and GPU 1
#     matrix cells instead of the one flag-on configuration (one server at a time; no room for the
#     speculation-off reference server beside a 70B shape at tp 2, so resume-equivalence is skipped):
#       MODE=matrix CELLS="EAGLE3-overlap=on-cuda-graph=on-topk=1-page=1-draft-extend=keep-flag=on" MODEL=llama3-70b TP=2 \
#         bench/gpu/fullsize_on_host.sh .gpu-bundle16 0.5.16
# (c) DP attention with the flag (--enable-dp-attention --dp-size 2), tp 2: patch 2.0's runtime
#     (CLASHES) refuses it at start-up, before the weights load; the cell passes when the refusal line
#     appears (verdict "refused"; cell args in bench/gpu/fullsize_dp.toml):
#       MODE=dp MODEL=llama3-70b TP=2 bench/gpu/fullsize_on_host.sh .gpu-bundle16 0.5.16
#     kind nvidia-h200-x2; expect 1-2 min
# After (a)/(b) the console shows the gate on the record: the same tp passes, another tp is refused.
# As device calls (the bundle built as in shared/gpu/README.md, then bench/gpu/slim_bundle.sh
# .gpu-bundle16 .gpu-bundle16s, which puts libcst and pyflakes inside it so no `.whl` need travel):
# run(kind="nvidia-h200-x2", carry=[".gpu-bundle16s"],
# command="MODE=dp MODEL=llama3-70b TP=2 bench/gpu/fullsize_on_host.sh .gpu-bundle16s 0.5.16"), then
# run(command="bench/gpu/fullsize_on_host.sh") until "done"; (b) and (a) the same way on the warm host
# ((a) uses GPU 0 of it; /tmp/site and /tmp/fsx stay while the host is warm).
set -u
. "$(dirname "$0")/host_common.sh"
host_env /tmp/fsx
B=${1:-}
if [ -n "$B" ]; then
  host_unpack "$B" "${2:-}" || exit 3
  MODEL=${MODEL:-llama3-70b}; TP=${TP:-1}; MODE=${MODE:-single}
  TAG="$MODE-$MODEL-L${LAYERS:-all}-tp$TP-$V"; echo "$TAG" > $W/tag
  OTHER_TP=$([ "$TP" = 1 ] && echo 2 || echo 1)
  ARGS="--target-dir $SITE --model-config $MODEL ${LAYERS:+--layers $LAYERS} --tp $TP --timeout ${TIMEOUT:-1200}"
  ARGS="$ARGS --log-dir $W/logs-$TAG --signoff $W/signoff-$TAG.json"
  case "$MODE" in
    single) ;;
    matrix) ARGS="$ARGS --matrix default --parallel ${PARALLEL:-1}"
            [ "${PARALLEL:-1}" = 1 ] && ARGS="$ARGS --skip-stage resume-equivalence"
            for c in ${CELLS:-}; do ARGS="$ARGS --cell $c"; done ;;
    dp)     ARGS="$ARGS --matrix bench/gpu/fullsize_dp.toml --cell dp-attention-flag" ;;
    plan)   ARGS="$ARGS --matrix default --plan" ;;
    *) echo "MODE must be single, matrix, dp or plan"; exit 3 ;;
  esac
  cat > $W/job.sh <<JOB
cd $PWD
nvidia-smi --query-gpu=timestamp,index,memory.used,memory.total --format=csv -l 2 > $W/smi-$TAG.csv 2>&1 &
SMI=\$!
{ nvidia-smi --query-gpu=index,name,memory.used,memory.total --format=csv; cat $W/apply-$V.txt; date -u
  echo "\$ patchkit smoke $ARGS ${SMOKE_EXTRA:-}"
  $PK smoke $ARGS ${SMOKE_EXTRA:-}
  echo "smoke rc=\$?"
  date -u
  if [ "$MODE" != plan ]; then
    $PK gate --target-dir $SITE --require-signoff --signoff $W/signoff-$TAG.json --tp $TP; echo "gate(tp $TP) rc=\$?"
    $PK gate --target-dir $SITE --require-signoff --signoff $W/signoff-$TAG.json --tp $OTHER_TP; echo "gate(tp $OTHER_TP) rc=\$?"
  fi
  echo "sglang processes left: \$(ps -eo pid,cmd | grep -c '[s]glang.launch_server.*$W/logs-$TAG')"
  nvidia-smi --query-gpu=index,memory.used --format=csv
} > $W/console-$TAG.txt 2>&1
kill \$SMI
rm -f $W/running
JOB
  setsid nohup bash $W/job.sh > /dev/null 2>&1 &
  echo $! > $W/running
  echo "started $TAG (pid $!)"
fi
TAG=$(cat $W/tag 2>/dev/null || echo unknown)
end=$((SECONDS + ${WAIT:-520}))
while [ -f $W/running ] && [ $SECONDS -lt $end ]; do sleep 5; done
[ -f $W/running ] && echo "still running after ${WAIT:-520}s: call again without arguments to collect" || echo "done"
for f in console signoff smi; do ls $W/$f-$TAG.* > /dev/null 2>&1 && cp $W/$f-$TAG.* "$OUT/"; done
tar czf "$OUT/logs-$TAG.tgz" -C $W logs-$TAG 2>/dev/null
tail -n 30 $W/console-$TAG.txt 2>/dev/null
