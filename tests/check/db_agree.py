"""Compares `tsume check --json` with the flags the enumerator stored.

usage: db_agree.py RECORDS CHECK_JSONL
RECORDS: one record a line, "SFEN moves <line>\t<flags>" (from `tsume query --json`).
The checker and the enumerator must agree on every record:
  complete (the flag)            <=> verdict complete
  yozume                         <=> a yozume or hayazume flaw that is not tolerated
  komaamari, last-move-alt       <=> a flaw of that kind
  hendou                         <=> a hendou flaw (a defence as long whose main line leaves the
                                     attacker's hand empty, before the second-last ply)
  higentei, tejun-zengo, ukai    <=> a flaw of that kind, on records without yozume (a record
                                     with 余詰 need not carry every kind of its other alternatives)
"""
import json
import sys

recs = [l.rstrip("\n").split("\t") for l in open(sys.argv[1], encoding="utf-8") if l.strip()]
outs = [json.loads(l) for l in open(sys.argv[2], encoding="utf-8") if l.strip()]
outs = [o for o in outs if "summary" not in o]
if len(recs) != len(outs):
    print(f"{len(recs)} records but {len(outs)} reports")
    sys.exit(1)
bad = {}


def disagree(what, rec, o):
    flaws = [(f["kind"], f["ply"], f["alt"]) for f in o.get("flaws", [])][:6]
    bad.setdefault(what, []).append((rec[0], rec[1], o["verdict"], flaws))


for rec, o in zip(recs, outs):
    flags = set(rec[1].split(","))
    if o["verdict"] in ("error", "bad-line", "unknown", "nomate"):
        disagree("verdict", rec, o)
        continue
    kinds = {f["kind"] for f in o["flaws"]}
    untol = {f["kind"] for f in o["flaws"] if not f["tolerated"]}
    if ("complete" in flags) != (o["verdict"] == "complete"):
        disagree("complete", rec, o)
    if ("yozume" in flags) != bool(untol & {"yozume", "hayazume"}):
        disagree("yozume", rec, o)
    for k in ("komaamari", "last-move-alt"):
        if (k in flags) != (k in kinds):
            disagree(k, rec, o)
    if ("hendou" in kinds) != ("hendou" in flags):
        disagree("hendou", rec, o)
    if "yozume" not in flags:
        for k in ("higentei", "tejun-zengo", "ukai"):
            if (k in flags) != (k in kinds):
                disagree(k, rec, o)
n = sum(len(v) for v in bad.values())
print(f"{len(recs)} records, {n} disagreements")
for k, v in bad.items():
    print(f"  {k}: {len(v)}")
    for x in v[:5]:
        print("    ", x)
sys.exit(1 if n else 0)
