"""Regenerate ncu_roofline/data/labels.csv: (section display name, metric label) -> ncu metric name.

The table is ncu's own mapping, read off two exports of the same report that differ only in
``--print-metric-name`` (labels vs names): their rows align one to one.

    python tools/make_label_table.py ../shared/ncu-samples/h200-micro/micro_full.details.csv \
        ../shared/ncu-samples/h200-micro/micro_full.details-names.csv
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "ncu_roofline" / "data" / "labels.csv"


def pairs(labels_csv: Path, names_csv: Path) -> dict[tuple[str, str], str]:
    with labels_csv.open(newline="") as a, names_csv.open(newline="") as b:
        ra, rb = csv.reader(a), csv.reader(b)
        ha, hb = next(ra), next(rb)
        if ha != hb:
            raise SystemExit("headers differ: not two exports of the same report")
        si, mi, vi = ha.index("Section Name"), ha.index("Metric Name"), ha.index("Metric Value")
        out: dict[tuple[str, str], str] = {}
        for x, y in zip(ra, rb, strict=True):
            if x[:mi] != y[:mi] or len(x) != len(y):
                raise SystemExit(f"rows differ: {x[:3]} vs {y[:3]}")
            if len(x) <= vi or not x[mi]:
                continue  # rule row
            key = (x[si], x[mi])
            if out.setdefault(key, y[mi]) != y[mi]:
                raise SystemExit(f"label {key} maps to two names: {out[key]} and {y[mi]}")
        return out


def main(argv: list[str]) -> None:
    table: dict[tuple[str, str], str] = {}
    if OUT.exists():
        with OUT.open(newline="") as fh:
            for row in csv.DictReader(fh):
                table[(row["section"], row["label"])] = row["metric"]
    for i in range(0, len(argv), 2):
        table.update(pairs(Path(argv[i]), Path(argv[i + 1])))
    with OUT.open("w", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["section", "label", "metric"])
        for (section, label), metric in sorted(table.items()):
            w.writerow([section, label, metric])
    print(f"{OUT}: {len(table)} labels")


if __name__ == "__main__":
    main(sys.argv[1:])
