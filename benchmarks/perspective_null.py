"""Where the perspective-fairness null puts value-blind summarizers (issue 28, Deliver 3; METHODS §4.7).

lead-3 and random-3 cannot prefer a rating: a null that is right for them centres their excess (observed − null mean)
on 0, so their 95% intervals cover 0 and their p-values are uniform. For each null named with ``--nulls`` and each
seed, this summarizes seeded samples of the FairSumm Yelp review sets (validation data read from ``../shared``, never
copied) and the 3 demo review sets with the sentiment split, and prints every test: excess, its 95% interval and its
two-sided p (one t-test over originals, so the interval excludes 0 exactly when p < 0.05).

    .venv/bin/python benchmarks/perspective_null.py                          # 60 Yelp sets, seeds 0-2, both nulls
    .venv/bin/python benchmarks/perspective_null.py --sets 40 --seeds 0 --nulls shape
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.calibration import demo_reviews_corpus, perturb, summarize, yelp_corpus

SUMMARIZERS = ("lead-3", "random-3")


def run(corpus, seed: int, nulls: Sequence[str], permutations: int) -> list[dict]:
    from bias_core.measures.common import pair_summaries
    from bias_core.measures.perspective import perspective_fairness

    inputs = perturb(corpus, seed, ["sentiment"], samples=1)[0]["sentiment"]
    rows = []
    for name in SUMMARIZERS:
        summaries, _ = summarize(name, inputs, seed)
        pairs = pair_summaries(inputs, summaries)
        for null in nulls:
            started = time.perf_counter()
            results = perspective_fairness(pairs, null=null, seed=seed, n_permutations=permutations)
            seconds = time.perf_counter() - started
            for result in results:
                test = (result.details or {}).get("test") or {}
                if not test:
                    continue
                covers = test["ci_low"] <= 0 <= test["ci_high"]
                rows.append({"corpus": corpus.name, "seed": seed, "summarizer": name, "null": null,
                             "measure": result.measure, "excess": test["estimate"], "low": test["ci_low"],
                             "high": test["ci_high"], "p": test["p_value"], "covers": covers,
                             "originals": result.n, "seconds": seconds})
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", type=int, default=60, help="Yelp review sets per seed (default 60)")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--nulls", nargs="+", default=["selection", "shape"])
    parser.add_argument("--permutations", type=int, default=1000)
    args = parser.parse_args(argv)
    rows = []
    for seed in args.seeds:
        corpora = [demo_reviews_corpus()]
        yelp = yelp_corpus(args.sets, seed)
        if yelp is not None:
            corpora.append(yelp)
        for corpus in corpora:
            rows += run(corpus, seed, args.nulls, args.permutations)
            print(f"[{time.strftime('%H:%M:%S')}] {corpus.name} seed {seed} done", file=sys.stderr, flush=True)
    print("| corpus | null | summarizer | seed | measure | excess [95% interval] | p | covers 0 |")
    print("|---|---|---|---|---|---|---|---|")
    for row in rows:
        print(f"| {row['corpus']} | {row['null']} | {row['summarizer']} | {row['seed']} | {row['measure']} | "
              f"{row['excess']:+.4f} [{row['low']:+.4f}, {row['high']:+.4f}] | {row['p']:.3f} | "
              f"{'yes' if row['covers'] else 'NO'} |")
    print()
    print("| null | summarizer | tests | intervals covering 0 | p < 0.05 |")
    print("|---|---|---|---|---|")
    for null in args.nulls:
        for name in SUMMARIZERS:
            chosen = [r for r in rows if r["null"] == null and r["summarizer"] == name]
            print(f"| {null} | {name} | {len(chosen)} | {sum(r['covers'] for r in chosen)} | "
                  f"{sum(r['p'] < 0.05 for r in chosen)} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
