"""What made a record of the experiment chapters' engine (book/exp_*.ipynb): the fingerprint of a
figure's source and the versions that matter, so that a stored result is reused only if it was
made by the same code (:func:`code_identity`, :func:`code_mismatch`).
"""

from __future__ import annotations

import hashlib
import importlib
import os
from pathlib import Path

import numpy as np

__all__ = ["source_fingerprint", "code_identity", "code_mismatch", "record_summary"]

#: modules of the package that store, schedule or describe results but compute none: a change in
#: them does not change a record's rows, so they are left out of a figure's source fingerprint
_NOT_COMPUTING = (
    "resnet_nb.experiments.engine",
    "resnet_nb.shared.store",
    "resnet_nb.experiments.progress",
    "resnet_nb.experiments.identity",
    "resnet_nb.experiments.cluster",
    "resnet_nb.core.claims",
    "resnet_nb.core.paths",
)
_FINGERPRINTS: dict = {}


def _module_file(name: str):
    import importlib.util

    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    origin = getattr(spec, "origin", None)
    return origin if origin and origin.endswith(".py") else None


def _code_of(path: str):
    """The module's code without its docstrings and comments (an AST dump), and the names of
    the ``resnet_nb`` modules it imports."""
    import ast

    tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    imports = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (
            isinstance(body, list)
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            del body[0]  # a docstring is prose, not code
        if isinstance(node, ast.Import):
            imports.update(a.name for a in node.names if a.name.startswith("resnet_nb"))
        elif isinstance(node, ast.ImportFrom) and not node.level and (node.module or "").startswith("resnet_nb"):
            imports.add(node.module)
            imports.update(f"{node.module}.{a.name}" for a in node.names)
    return ast.dump(tree, annotate_fields=False), imports


def source_fingerprint(module) -> str | None:
    """SHA-256 of the code of a figure's module and of every ``resnet_nb`` module it imports,
    directly or not (their code without docstrings and comments, so that a prose edit keeps
    the records), leaving out the store's own modules. None for a module without a source file."""
    path = getattr(module, "__file__", None)
    if not path or not str(path).endswith(".py"):
        return None
    cache_key = (str(path), os.stat(path).st_mtime_ns)
    if cache_key in _FINGERPRINTS:
        return _FINGERPRINTS[cache_key]
    seen, parts, queue = set(), [], [(getattr(module, "__name__", "figure"), str(path))]
    while queue:
        name, file = queue.pop()
        if file in seen:
            continue
        seen.add(file)
        code, imports = _code_of(file)
        parts.append((name, code))
        for imp in sorted(imports):
            if imp in _NOT_COMPUTING or imp.startswith("resnet_nb.book"):
                continue
            f = _module_file(imp)
            if f is not None and f not in seen:
                queue.append((imp, f))
    digest = hashlib.sha256()
    for name, code in sorted(parts):
        digest.update(f"{name}\n{code}\n".encode())
    _FINGERPRINTS[cache_key] = digest.hexdigest()
    return _FINGERPRINTS[cache_key]


def code_identity(module) -> dict:
    """What a record of ``module`` must have been made by to be reused: the fingerprint of the
    figure's source (:func:`source_fingerprint`) and the torch and numpy versions. A figure
    that computes from another figure's items (``SHARES_RECORDS_WITH``, e.g. fig8 from fig6)
    is judged by the code of that figure, whose records it reads."""
    import torch

    from resnet_nb.experiments.engine import FIGURES

    owner = getattr(module, "SHARES_RECORDS_WITH", None)
    if owner in FIGURES:
        module = importlib.import_module(FIGURES[owner])

    return {
        "module": getattr(module, "__name__", None),
        "source_sha256": source_fingerprint(module),
        "torch": torch.__version__,
        "numpy": np.__version__,
    }


def code_mismatch(body: dict, expected: dict) -> str:
    """Why the record ``body`` was not made by ``expected`` (:func:`code_identity`): a text
    naming what differs, or ``""`` when the record may be reused."""
    prov = body.get("provenance") if isinstance(body.get("provenance"), dict) else {}
    versions = prov.get("versions") if isinstance(prov.get("versions"), dict) else {}
    code = prov.get("code") if isinstance(prov.get("code"), dict) else {}
    why = []
    if expected.get("source_sha256") is not None:
        had = code.get("source_sha256")
        if had is None:
            why.append("made by code of unknown source (no fingerprint in the record)")
        elif had != expected["source_sha256"]:
            now = expected["source_sha256"][:10]
            why.append(f"made by other code of {expected.get('module')} (source {had[:10]}, now {now})")
    for lib in ("torch", "numpy"):
        had = versions.get(lib)
        if had != expected[lib]:
            why.append(f"{lib} {had} (now {expected[lib]})")
    return "; ".join(why)


def record_summary(prov) -> dict:
    """What the provenance of a table says about one record: where and with what it was made."""
    prov = prov if isinstance(prov, dict) else {}
    git = prov.get("git") if isinstance(prov.get("git"), dict) else {}
    versions = prov.get("versions") if isinstance(prov.get("versions"), dict) else {}
    code = prov.get("code") if isinstance(prov.get("code"), dict) else {}
    return {
        "commit": git.get("commit"),
        "package_modified": git.get("package_modified"),
        "torch": versions.get("torch"),
        "numpy": versions.get("numpy"),
        "source_sha256": code.get("source_sha256"),
        "wall_time_s": prov.get("wall_time_s"),
    }
