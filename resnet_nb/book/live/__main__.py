"""``python -m resnet_nb.book.live DIR [--no-cases]``: write the live explorers' data and cases."""

from __future__ import annotations

import argparse

from resnet_nb.book.live import write_all


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description="Write the live explorers' data and cross-check cases.")
    ap.add_argument("outdir", help="folder to write <name>.data.json and <name>.cases.json into")
    ap.add_argument("--no-cases", action="store_true", help="write the data the pages load only")
    args = ap.parse_args(argv)
    for p in write_all(args.outdir, cases=not args.no_cases):
        print(p)


if __name__ == "__main__":
    main()
