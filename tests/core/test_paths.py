"""Every folder the package reads or writes comes from resnet_nb.core.paths."""

import pytest


def test_paths_point_into_the_repository():
    from resnet_nb.core import paths

    assert (paths.ROOT / "resnet_nb" / "core" / "paths.py").exists()
    assert paths.results_dir("fig5", "paper") == paths.RESULTS / "fig5" / "paper"
    assert paths.BOOK.is_dir() and paths.QUOTES.parent == paths.BOOK
    with pytest.raises(ValueError):
        paths.results_dir(scale="paper")
