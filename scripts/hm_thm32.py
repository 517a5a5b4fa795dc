"""Write results/hm_thm32/records/: the per-draw and per-projection tables the Hardt & Ma expressivity
chapter reads (the paper's order at the paper's width under both readings of rho, the proof's JL step,
the margins after projection of the chapter's two point sets over many projections), one record of
the engine's store per draw and per point set and width (``hr.reproduce_thm32``; items already
stored are not recomputed: delete ``records/`` to start over). The chapter reads them with
``hr.load_thm32()``.

    PYTHONPATH=. OMP_NUM_THREADS=1 python scripts/hm_thm32.py [OUT]      (a few minutes on one core)

``tests/hardt_ma/test_theorem3_2_width.py`` recomputes some rows and compares them with the committed ones."""

import sys

from resnet_nb.hardt_ma import relu as hr


def main(out=None):
    draws, projections = hr.reproduce_thm32(out)
    print(f"{len(draws)} draws, {len(projections)} projections stored")


if __name__ == "__main__":
    main(*sys.argv[1:])
