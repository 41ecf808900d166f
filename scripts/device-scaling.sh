#!/bin/bash
# Thread scaling of `generate` on a many-core machine (issue 26, item 3):
# Russian -n 5 on 1/2/4/8/16 threads, then -n 6 on 16/8/4, each from
# scratch, with /usr/bin/time -v where the machine has it.  Every run's
# --json summary, stderr, time and phase notes go to $RES, tarred into
# $OUT/scaling.tgz after each run (a run killed by the time limit keeps the
# earlier ones).  Compare with `generate --dry-run -t N` predictions made
# from the notes (scripts/README or the issue note says how).
# Usage: scripts/device-scaling.sh BINDIR   (BINDIR holds damka and its .so files)
# SMALL/LARGE (5/6) and SMALL_THREADS/LARGE_THREADS change the runs.
set -u
B=$(realpath "${1:-devbin}")
export LD_LIBRARY_PATH=$B OMP_WAIT_POLICY=passive
D=$B/damka
OUT=${OUT:-/tmp/scaling-out}
RES=/tmp/scaling-res
W=${WORK:-/tmp/scaling-work}
mkdir -p "$OUT" "$RES"
{ nproc; lscpu; free -g; df -h /tmp; } > "$RES/machine.txt" 2>&1
head -20 "$RES/machine.txt"
"$D" --version 2>&1 | head -2
pack() { tar czf "$OUT/scaling.tgz.tmp" -C "$RES" . && mv "$OUT/scaling.tgz.tmp" "$OUT/scaling.tgz"; }
run() {  # name threads pieces
  local name=$1 t=$2 n=$3 dir=$W/$1
  rm -rf "$W"; mkdir -p "$dir"
  local s=$EPOCHREALTIME
  local timer=()
  [ -x /usr/bin/time ] && timer=(/usr/bin/time -v -o "$RES/$name.time")
  "${timer[@]}" "$D" generate -v russian -n "$n" -t "$t" --memory 16G -o "$dir" --json > "$RES/$name.json" 2> "$RES/$name.err"
  local rc=$? e=$EPOCHREALTIME
  cp "$dir"/.damka-phases-*.json "$RES/$name.notes.json" 2>/dev/null
  du -sb "$dir" > "$RES/$name.du"
  awk -v s="$s" -v e="$e" -v n="$name" -v rc="$rc" 'BEGIN{printf "%-8s rc=%s wall %.1f s\n", n, rc, e - s}' | tee -a "$RES/walls.txt"
  pack
}
S=${SMALL:-5} L=${LARGE:-6}
for t in ${SMALL_THREADS:-16 8 4 2 1}; do run n${S}t$t $t $S; done
for t in ${LARGE_THREADS:-16 8 4}; do run n${L}t$t $t $L; done
cat "$RES/walls.txt"
