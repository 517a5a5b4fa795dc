"""What the chapters show: the claims ledger and its HTML (:mod:`.ledger`), numbers as the prose
prints them (:mod:`.show`), the palette (:mod:`.palette`), figures (:mod:`.plotting`,
:mod:`.li_figures`, :mod:`.hardt_ma_figures`) and the interactive explorers (:mod:`.views`)."""
