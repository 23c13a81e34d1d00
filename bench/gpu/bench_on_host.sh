#!/usr/bin/env bash
# On the GPU host, from the repo root (the device tool's working copy):
#   bench/gpu/bench_on_host.sh BUNDLE_DIR VERSION [CONFIGS]   unpack that SGLang bundle twice
#        (pristine + dynamic-spec-disable applied by patchkit) and queue its benchmark
#   bench/gpu/bench_on_host.sh                                 only wait for the queue and collect
# Jobs run in the background (setsid), one at a time (a lock directory), so one benchmark may span several
# device calls while the machine stays warm. Each call waits up to $WAIT seconds, then packs what
# is finished into $OUT/bench-results.tgz. Env: WAIT (520), SIZE (8b), LEVELS, SECS (6), EXTRA (more
# arguments), MODE=profile (bench/profile_step.py at concurrency CONC instead of the throughput sweep),
# PROFILE_CONFIGS (after the sweep, profile those configurations), PROFILE_EXTRA / BENCH_EXTRA
# (arguments for one of the two only),
# ACCEPT="skip keep" (first, the smoke's resume-acceptance stage on the tiny model,
# bench/gpu/accept_matrix.toml, once per PATCHKIT_SPEC_DISABLE_DRAFT_EXTEND setting),
# SMOKE_FI=1 (last, the smoke matrix bench/gpu/flashinfer_matrix.toml on the tiny model: every stage
# but soak / request-kinds / forced-acceptance, the patch's checkers on; SMOKE_MATRIX and SMOKE_CELLS
# name another matrix file and its cells, e.g. bench/gpu/kv_matrix.toml).
set -u
OUT=${OUT:-/tmp/out}; W=/tmp/pkbench; mkdir -p $W/results "$OUT"
B=${1:-}; V=${2:-}; CONFIGS=${3:-nospec,eagle,patched}
if [ -n "$B" ]; then
  S=$W/site-$V; P=$W/site-$V-patched; R=$W/repo-$V
  rm -rf $S $P $R; mkdir -p $S $R && tar xf "$B/site.tar.xz" -C $S || exit 3
  WHL=.whl; ls .whl/*.whl > /dev/null 2>&1 || WHL=/tmp/whl   # carried by an earlier call (64 MiB per call)
  if ls $WHL/*.whl > /dev/null 2>&1; then   # none where the bundle already holds libcst and pyflakes
    python3 -m pip install -q --no-index --no-deps --no-compile --target $S $WHL/*.whl || exit 3
  fi
  cp -a $S $P
  cp -a bench patchkit patches checks fixtures pyproject.toml $R/
  (cd $R && PYTHONPATH=$P:$R python3 -m patchkit apply dynamic-spec-disable --target-dir $P) \
      > $W/results/apply-$V.txt 2>&1 || { cat $W/results/apply-$V.txt; exit 3; }
  rm -f $W/results/done-$V   # an earlier job's marker would end the wait below at once
  echo "$V" >> $W/queue
  cat > $W/job-$V.sh <<JOB
cd $R
export PYTHONPATH=$P:$R PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
until mkdir $W/gpu.lock.d 2>/dev/null; do sleep 5; done   # one benchmark at a time
[ -f $W/model/agree.json ] || { time python3 bench/agree_model.py --out $W/model --size ${SIZE:-8b}; } > $W/results/model.txt 2>&1
nvidia-smi > $W/results/nvidia-smi-$V.txt 2>&1
for m in ${ACCEPT:-}; do
  PATCHKIT_SPEC_DISABLE_DRAFT_EXTEND=\$m timeout 900 python3 -m patchkit smoke --target-dir $P --tiny --parallel 2 \
    --matrix bench/gpu/accept_matrix.toml --cell standalone --cell eagle3 --skip-stage first-decode --skip-stage threshold-crossings \
    --skip-stage sampled-decode --skip-stage request-kinds --skip-stage resume-equivalence \
    --skip-stage greedy-equivalence --skip-stage soak --skip-stage forced-acceptance \
    --signoff $W/results/signoff-accept-\$m-$V.json --log-dir $W/smoke-\$m > $W/results/console-accept-\$m-$V.txt 2>&1
  tar czf $W/results/smoke-logs-\$m-$V.tgz -C $W smoke-\$m 2>/dev/null
done
if [ "${MODE:-bench}" != profile ]; then
timeout ${JOB_TIMEOUT:-2400} python3 bench/spec_throughput.py --out $W/results/bench-$V.json \
  --model-path $W/model/target --draft-model-path $W/model/draft --site $S --patched-site $P \
  --configs "$CONFIGS" --levels ${LEVELS:-1,2,4,8,16,32,64,128,256} --seconds ${SECS:-6} ${EXTRA:-} ${BENCH_EXTRA:-} \
  --workdir $W/work-$V > $W/results/console-$V.txt 2>&1
fi
if [ "${MODE:-bench}" = profile ] || [ -n "${PROFILE_CONFIGS:-}" ]; then
timeout ${JOB_TIMEOUT:-2400} python3 bench/profile_step.py --out $W/results/profile-$V.json \
  --model-path $W/model/target --draft-model-path $W/model/draft --site $S --patched-site $P \
  --configs "${PROFILE_CONFIGS:-$CONFIGS}" --concurrency ${CONC:-128} ${EXTRA:-} ${PROFILE_EXTRA:-} \
  --workdir $W/work-$V/profile > $W/results/console-profile-$V.txt 2>&1
fi
if [ -n "${SMOKE_FI:-}" ]; then
  timeout ${SMOKE_TIMEOUT:-900} python3 -m patchkit smoke \
    --target-dir $P --tiny --parallel 2 --matrix ${SMOKE_MATRIX:-bench/gpu/flashinfer_matrix.toml} \
    $(for c in ${SMOKE_CELLS:-eagle3-flashinfer standalone-flashinfer}; do printf -- '--cell %s ' $c; done) \
    --skip-stage soak --skip-stage request-kinds --skip-stage forced-acceptance \
    --signoff $W/results/signoff-flashinfer-$V.json --log-dir $W/smoke-fi > $W/results/console-smoke-fi-$V.txt 2>&1
  echo "smoke rc=\$?" >> $W/results/console-smoke-fi-$V.txt
  tar czf $W/results/smoke-logs-fi-$V.tgz -C $W smoke-fi 2>/dev/null
fi
for f in $W/work-$V/server-*.log; do grep -v '^\s*$' \$f | tail -c 400000 > $W/results/$V-\$(basename \$f); done
rmdir $W/gpu.lock.d
touch $W/results/done-$V
JOB
  setsid nohup bash $W/job-$V.sh > $W/results/job-$V.txt 2>&1 < /dev/null &
fi
end=$((SECONDS + ${WAIT:-520}))
while [ $SECONDS -lt $end ]; do
  pending=0; for q in $(cat $W/queue 2>/dev/null); do [ -f $W/results/done-$q ] || pending=1; done
  [ $pending = 0 ] && break; sleep 10
done
# the patch's lines of every server so far, finished or not (a call that ends the session keeps them)
for f in $W/work-*/server-*.log; do [ -f "$f" ] || continue
  grep -H -e "patchkit-spec-disable: ready" -e "kv-check" -e "full draft extend instead" "$f" | head -n 200
  grep -H "patchkit-spec-disable: O[NF]" "$f" | tail -n 20; done \
  > $W/results/patch-lines-live.txt 2>/dev/null
tar czf "$OUT/bench-results.tgz" -C $W results
for f in $W/results/console-*.txt; do echo "== $f"; tail -n 25 "$f"; done
echo "pending=$pending"
