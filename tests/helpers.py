"""Small shared fixtures for the unit tests."""
import torch

import resnet_nb as rn


def random_dataset(d, m, seed=0, scale=1.0):
    """Gaussian inputs and targets (no structure at all): an unfriendly instance."""
    g = torch.Generator().manual_seed(seed)
    X = scale * torch.randn(d, m, generator=g, dtype=torch.float64)
    Y = torch.randn(d, m, generator=g, dtype=torch.float64)
    return rn.Dataset(X, Y)
