"""The numbers each chapter's prose quotes (book/*.ipynb), one module per chapter: functions that
select them from a package result and format them as the page shows them (:mod:`resnet_nb.book.show`).
The mathematics they read lives in the papers' packages."""
