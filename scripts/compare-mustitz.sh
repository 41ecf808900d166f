#!/usr/bin/env bash
# Per-core speed of damka's generator against mustitz/checkers (a hobby
# Russian-draughts program whose `etb gen` builds endgame tables), on the
# 35 Russian materials it can build: up to 5 pieces, at most 3 a side.
#
#   scripts/compare-mustitz.sh DAMKA RUS_CHECKERS [CORE]
#
# DAMKA: the damka binary; RUS_CHECKERS: mustitz/checkers' source/rus-checkers
# (autoreconf -i && ./configure && make in a checkout of its public source).
# Both run pinned to one core (CORE, default 0); for a fair figure nothing
# else should run on it.  Prints each program's time for the 35 materials:
# damka's is the sum of their wall seconds in one `generate -n 5 -t 1
# --metrics wdl` run (its phases file), which also builds the ten 4-against-1
# materials mustitz does not; that run's whole time is printed too.
set -euo pipefail
damka=$(realpath "$1")
mustitz=$(realpath "$2")
core=${3:-0}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The 35 materials, fewest pieces first, then fewest men (what a material
# converts into comes first): mustitz's letters (W/B king, w/b man) and damka's names.
python3 - "$work" <<'EOF'
import sys
work = sys.argv[1]
sides = [(k, n - k) for n in (1, 2, 3) for k in range(n, -1, -1)]  # (kings, men)
pairs = []
for i, a in enumerate(sides):
    for b in sides[i:]:
        if sum(a) + sum(b) > 5:
            continue
        w, bl = (a, b) if (sum(a), a[0]) >= (sum(b), b[0]) else (b, a)
        pairs.append((w, bl))
pairs.sort(key=lambda p: (sum(p[0]) + sum(p[1]), p[0][1] + p[1][1], p))
assert len(pairs) == 35
name = lambda s: (f"{s[0]}K" if s[0] else "") + (f"{s[1]}M" if s[1] else "")
with open(f"{work}/mustitz.txt", "w") as f:
    for w, b in pairs:
        f.write("etb gen " + "W" * w[0] + "w" * w[1] + "B" * b[0] + "b" * b[1] + "\n")
with open(f"{work}/damka.txt", "w") as f:
    for w, b in pairs:
        f.write(name(w) + "v" + name(b) + "\n")
EOF

mkdir "$work/etb" "$work/tables"
start=$(date +%s.%N)
(cd "$work/etb" && taskset -c "$core" "$mustitz" < "$work/mustitz.txt" > "$work/mustitz.out" 2>&1)
end=$(date +%s.%N)
mustitz_s=$(python3 -c "print($end - $start)")
[ "$(ls "$work/etb" | wc -l)" -eq 35 ] || { echo "mustitz built $(ls "$work/etb" | wc -l) of 35 tables; see its output:"; tail "$work/mustitz.out"; exit 1; }

start=$(date +%s.%N)
taskset -c "$core" "$damka" generate -v russian -n 5 -t 1 --metrics wdl -o "$work/tables" > /dev/null 2> "$work/damka.err"
end=$(date +%s.%N)
damka_all=$(python3 -c "print($end - $start)")

python3 - "$work" "$mustitz_s" "$damka_all" <<'EOF'
import json, sys
work, mustitz_s, damka_all = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
phases = json.load(open(f"{work}/tables/.damka-phases-russian.json"))["materials"]
total = 0.0
for m in open(f"{work}/damka.txt").read().split():
    a, b = m.split("v")
    key = m if m in phases else f"{b}v{a}"
    total += phases[key]["wall_seconds"]
print(f"mustitz/checkers, 35 materials: {mustitz_s:.1f} s")
print(f"damka, the same 35 materials:   {total:.1f} s  ({mustitz_s / total:.2f}x as fast per core)")
print(f"damka, whole -n 5 run (45 materials): {damka_all:.1f} s")
EOF
