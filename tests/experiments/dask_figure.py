"""A figure module for the Dask tests: each item logs its start and end with the worker's pid."""

import os
import time

SCALES = {"default": {"xs": [0, 1, 2, 3], "seconds": 0.5, "log": "dask_figure.log"}}


def configurations(config):
    return [{"figure": "dask_figure", "x": x, "seconds": config["seconds"], "log": config["log"]} for x in config["xs"]]


def cost(item):
    return 1.0


def _log(item, what):
    with open(item["log"], "a") as fh:
        fh.write(f"{what} {item['x']} {os.getpid()}\n")


def run_one(item, device="cpu"):
    _log(item, "start")
    time.sleep(item["seconds"])
    _log(item, "end")
    return [{"x": item["x"], "y": item["x"] ** 2}]
