"""What the experiment figures share (resnet_nb.shared.common): curves on a common loss grid."""

import numpy as np

from resnet_nb.shared.common import interpolate_on_grid


def test_interpolation_onto_a_loss_grid():
    x = np.array([3.0, 2.0, 2.5, 1.0, 0.0])  # a rise at the third point is dropped
    y = np.array([30.0, 20.0, 99.0, 10.0, 0.0])
    out = interpolate_on_grid(x, y, [0.5, 1.5, 4.0])
    np.testing.assert_allclose(out[:2], [5.0, 15.0])
    assert np.isnan(out[2])
