"""Everything the judge writes, rendered in one place: the report end of the story.

- :mod:`judge.render.templates`: the one Jinja2 setup (``templates/``): whole mails with their
  subject, pieces of mail, HTML parts (autoescaped), archive pages, 72-column wrapping.
- :mod:`judge.render.describe`: the one order describer: orders and units in words, a power's
  order list, its adjustment note.
- :mod:`judge.render.view` and :mod:`judge.render.zine`: the zine-style results report of one
  phase (text, HTML and map pictures).

It reads the board (:mod:`judge.engine`), draws maps (:mod:`judge.mapdraw`) and knows nothing of
games, stores or mail transports: :mod:`judge.game` and :mod:`judge.mail` call it.
"""
