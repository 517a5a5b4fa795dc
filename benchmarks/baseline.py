"""The straightforward baseline the engine is timed against (never used by the book).

What a first implementation would do: one Python loop iteration per configuration (run x
learning rate), the loss computed from the samples, gradients by autograd, and Hessians by
``torch.func.hessian`` of the per-sample loss. Same networks, seeds and data as the figure
modules, so the numbers must agree with theirs (the benchmark checks that they do).
"""

from __future__ import annotations

import numpy as np
import torch

from resnet_nb.core import hessians
from resnet_nb.core.losses import loss_samples
from resnet_nb.core.networks import flatten, unflatten
from resnet_nb.shared.common import initial_weights, mnist, network


def fig9_item(item: dict, device: str = "cpu") -> list[dict]:
    """Figure 9 rows of one item, one configuration at a time."""
    net = network(item["arch"], item["depth"], relu=item["relu"])
    data = mnist(item.get("n_per_class")).to(device=device)
    W0 = initial_weights(item["arch"], net, seed=item["seed"], runs=item["runs"], device=device)
    rows = []
    for r in range(item["runs"]):
        for lr in item["lrs"]:
            W = W0[r].clone()
            diverged = False
            for epoch in range(item["epochs"] + 1):
                W.requires_grad_(True)
                L = loss_samples(net, W, data)
                if not torch.isfinite(L) or L > 1e12:
                    diverged = True
                    break
                if epoch == item["epochs"]:
                    break
                (g,) = torch.autograd.grad(L, W)
                W = (W - lr * g).detach()
            rows.append(
                {
                    "arch": item["arch"],
                    "depth": item["depth"],
                    "run": r,
                    "lr": lr,
                    "diverged": diverged,
                    "final_loss": float("nan") if diverged else float(L.detach()),
                }
            )
    return rows


def fig5_item(item: dict, device: str = "cpu") -> list[dict]:
    """Figure 5 row of one item: ``torch.func.hessian`` of the per-sample loss, then eigvalsh."""
    net = network(item["arch"], item["depth"])
    data = mnist().to(device=device)
    w0 = flatten(initial_weights(item["arch"], net, seed=item["seed"], device=device))
    H = torch.func.hessian(lambda w: loss_samples(net, unflatten(w, net), data))(w0)
    a = np.abs(hessians.spectrum(H))
    p10 = float(np.percentile(a, 10))
    return [
        {
            "arch": item["arch"],
            "depth": item["depth"],
            "run": item["run"],
            "lam_max": float(a.max()),
            "lam_p10": p10,
            "cond": float(a.max() / p10),
        }
    ]


def fig6_item(item: dict, snapshot_epochs, device: str = "cpu") -> list[dict]:
    """Figure 6 rows of one run: autograd training on samples, ``torch.func.hessian`` at snapshots."""
    net = network(item["arch"], item["depth"], relu=item["relu"])
    data = mnist(item.get("n_per_class")).to(device=device)
    W = initial_weights(item["arch"], net, seed=item["seed"], device=device)
    wanted = set(snapshot_epochs)
    rows = []
    for epoch in range(item["epochs"] + 1):
        if epoch in wanted:
            w0 = flatten(W.detach())
            H = torch.func.hessian(lambda w: loss_samples(net, unflatten(w, net), data))(w0)
            a = np.abs(hessians.spectrum(H))
            rows.append({"epoch": epoch, "lam_max": float(a.max()), "lam_p10": float(np.percentile(a, 10))})
        W.requires_grad_(True)
        (g,) = torch.autograd.grad(loss_samples(net, W, data), W)
        W = (W - item["lr"] * g).detach()
    return rows
