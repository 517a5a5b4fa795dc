"""The longer seed sweep of the chapter ``theorem1_dynamics``: linear 2-shortcut networks (R = 4)
on whitened MNIST, gradient descent with learning rate 0.5 from the small start, seeds 0 to 7,
6,000 epochs, the exact Hessian's lambda_max every 250 epochs. Writes one record per seed to
``results/t1d_long_sweep/records/`` (about 20 s on one core; seeds already stored are not trained
again: delete the folder to start over); the chapter reads it with ``li.dynamics.load_sweep()``.

Usage, from the repository root: ``PYTHONPATH=$PWD OMP_NUM_THREADS=1 python scripts/t1d_long_sweep.py``
"""

import pandas as pd

from resnet_nb.li import dynamics as t1d

if __name__ == "__main__":
    sweep = t1d.long_sweep_reproduce()
    print(pd.DataFrame(sweep["rows"]).to_string(index=False))
