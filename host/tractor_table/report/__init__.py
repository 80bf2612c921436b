"""Hand reports people read and share: a recorded hand (``tractor-table
records``) as a model (:mod:`.model`), written for the terminal
(:mod:`.text`, coloured suits on a terminal) or as one self-contained
printable HTML file (:mod:`.html`); stepping through a hand event by event
(:mod:`.replay`, for recorded hands and ``simulate --records`` files); the
match score sheet (:mod:`.sheet`). Card names in English (``AS``, ``AS.1``
for the second deck's copy) or Chinese (``lang="zh"``: 黑桃A, 大王)."""
