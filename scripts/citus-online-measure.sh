#!/bin/bash
# Measures Recipes v2 → v3 online on Citus against an offline twin, with pgbench writing and
# reading 20 times a second each (docs/Citus.md, "Online migrations on Citus").
# Usage: CITUS_URL=… scripts/citus-online-measure.sh RECIPES policies|declarative TAG
# (RECIPES recipes of 3 ingredients each; run as a user that may connect; TM= another CLI binary.)
# The app statements' worst waits printed below come from pgbench's logs, which may lose their
# tail when it is stopped: the docs' figures come from the coordinator's log instead
# (ALTER SYSTEM SET log_min_duration_statement = 15; grep the tenant's UPDATE and SELECT).
set -u
URL=${CITUS_URL:-postgres://postgres@localhost:9700/tm_citus}
TM=${TM:-.build/debug/tenant-migrate}
cd "$(dirname "$0")/.."
R=$1; WAY=$2; TAG=$3
CAT=citus_measure
MAP=""; [ "$WAY" = declarative ] && MAP="--mappings Migrations/Recipes/Mappings/Declarative"
ON=on${TAG}x; OFF=off${TAG}x
COMMON="--database-url $URL --migrations Migrations --family Recipes --catalog $CAT"
$TM tenant create $COMMON --version v2 $ON $OFF > /dev/null || exit 1
for t in $ON $OFF; do
psql -X -q $URL <<SQL
INSERT INTO tenant_$t.recipe (name, type, servings, method)
  SELECT 'Recipe ' || g, (ARRAY['Meat','Fish','Vegetarian','Dessert','Entrée','Other'])[1 + g % 6], 2 + g % 5, 'Stir ' || g FROM generate_series(1, $R) g;
INSERT INTO tenant_$t.recipe_ingredient (recipe_id, name, quantity, unit_of_measure)
  SELECT r.id, 'Ingredient ' || ((r.id * 3 + k) % 500), k + 1, (ARRAY['g','kg','tbsp','tsp','piece','ml'])[1 + (r.id + k) % 6]
  FROM tenant_$t.recipe r, generate_series(0, 2) k;
ANALYZE tenant_$t.recipe; ANALYZE tenant_$t.recipe_ingredient;
SQL
done
cat > /tmp/tm-citus-measure-w.sql <<SQL
\set id random(1, $R)
UPDATE tenant_$ON.recipe SET servings = servings + 1 WHERE id = (SELECT min(id) FROM tenant_$ON.recipe) + :id - 1;
SQL
cat > /tmp/tm-citus-measure-r.sql <<SQL
\set id random(1, $R)
SELECT count(*) FROM tenant_$ON.recipe_ingredient WHERE recipe_id = (SELECT min(id) FROM tenant_$ON.recipe) + :id - 1;
SQL
rm -f /tmp/tm-citus-measure-pgw.[0-9]* /tmp/tm-citus-measure-pgr.[0-9]*
pgbench -n -c 8 -j 2 -R 20 -T 120 -f /tmp/tm-citus-measure-w.sql -l --log-prefix=/tmp/tm-citus-measure-pgw $URL > /tmp/tm-citus-measure-pgw.out 2>&1 &
PW=$!
pgbench -n -c 8 -j 2 -R 20 -T 120 -f /tmp/tm-citus-measure-r.sql -l --log-prefix=/tmp/tm-citus-measure-pgr $URL > /tmp/tm-citus-measure-pgr.out 2>&1 &
PR=$!
sleep 3
S=$(date +%s.%N)
$TM migrate $COMMON $MAP --online --lock-timeout 1000 --json --tenant $ON > /tmp/tm-citus-measure-on-$TAG.json 2>/tmp/tm-citus-measure-on-$TAG.err
E=$(date +%s.%N)
sleep 2
kill $PW $PR 2>/dev/null; wait $PW $PR 2>/dev/null
S2=$(date +%s.%N)
$TM migrate $COMMON $MAP --lock-timeout 1000 --json --tenant $OFF > /tmp/tm-citus-measure-off-$TAG.json 2>/tmp/tm-citus-measure-off-$TAG.err
E2=$(date +%s.%N)
echo "rows: $R recipes + $((3*R)) ingredients; way $WAY"
echo "online run: $(echo "$E - $S" | bc) s; offline run: $(echo "$E2 - $S2" | bc) s"
python3 - "$TAG" <<PY
import json,sys,glob
tag=sys.argv[1]
d=json.load(open(f'/tmp/tm-citus-measure-on-{tag}.json'))
def find(o):
    if isinstance(o,dict):
        if 'online' in o and isinstance(o['online'],dict): return o
        for v in o.values():
            r=find(v)
            if r: return r
    if isinstance(o,list):
        for v in o:
            r=find(v)
            if r: return r
r=find(d)
on=r['online']
print('online:', {k:on.get(k) for k in ['mode','rowsCopied','changesCaughtUp','rounds','rowsMigratedAgain','cutoverAttempts','writesBlockedMilliseconds','readsBlockedMilliseconds']}, 'outcome', r.get('outcome'))
for kind in ['pgw','pgr']:
    lat=[]; fail=0
    for f in glob.glob(f'/tmp/tm-citus-measure-{kind}.[0-9]*'):
        for line in open(f):
            p=line.split()
            if len(p)>=3:
                if p[2] in ('failed','skipped'): fail+=1
                else: lat.append((int(p[2]) - (int(p[6]) if len(p) > 6 else 0))/1000.0)
    lat.sort()
    print(kind, 'statements', len(lat), 'failed/skipped', fail, 'worst ms', round(lat[-1]) if lat else None, 'p99 ms', round(lat[int(len(lat)*0.99)-1]) if lat else None)
PY
