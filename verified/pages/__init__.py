"""Rendering the reports into pages, in the page's language (``verified.render`` until it was
split along its jobs):

- :mod:`~verified.pages.words`: the site's words in each language;
- :mod:`~verified.pages.fmt`: formatting values, environments and lists;
- :mod:`~verified.pages.standing`: the status of a sentence, from every record it rests on,
  and what a page does with it;
- :mod:`~verified.pages.fields`: the placeholder grammar and the text of each field;
- :mod:`~verified.pages.markdown`: sections and anchors of the pages; Chinese soft breaks;
- :mod:`~verified.pages.page`: one page (``{{ <id> | <framework>[@<device>] | <field> }}``,
  ``{{ verified }}``, the banner);
- :mod:`~verified.pages.tables`: the verification page, the release matrix, the
  silent-failures table;
- :mod:`~verified.pages.site`: one build's state (the reports, what was shown as failed);
- :mod:`~verified.pages.figures`: the figures each ``snippets/<article>/figures.py`` draws.

This module imports nothing: importing one of them does not load the others.
"""
