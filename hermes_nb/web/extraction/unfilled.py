"""Template expressions a page's scripts were to fill: ``{{ upvoteCount | shortNum }}`` is markup, not text.

Pages built with a client-side framework (Vue, AngularJS, Handlebars, Liquid in a shop's theme) ship
their templates in the HTML and fill them in the browser. The HTML we read is the unfilled template:
a forum's sidebar says ``21 {{ upvoteCount | shortNum }}`` under each thread, a shop's banner "Free
standard shipping over {{threshold_with_currency}}", a menu ``{{ navItem.title }}``. A browser with
scripts shows numbers and names there; a reader of our text would get template syntax passed off as
the page's words. Each double-brace expression goes from the text it sits in; the words around it
stay. Text inside code, preformatted blocks and the like stays whole: documentation shows template
syntax on purpose, in code. So does text holding a TeX command (``\\frac{{1}}{{2}}`` in a page MathJax
typesets in the browser), whose doubled braces are the formula's.
"""

from __future__ import annotations

import re
from typing import Any

from .tree import CODE_TAGS, texts_outside

__all__ = ["drop_unfilled_expressions"]

#: A double-brace expression on one line, without braces inside (a variable, a path, filters).
_EXPRESSION = re.compile(r"\{\{[^{}\n]{1,120}\}\}")
#: A TeX command (``\\frac``): the text is a formula's source, its doubled braces the formula's own.
_TEX_COMMAND = re.compile(r"\\[A-Za-z]")
#: Elements whose text shows code, or is no text: template syntax there is what the page means.
_CODE = CODE_TAGS | {"var", "textarea", "script", "style", "template"}


def drop_unfilled_expressions(root: Any) -> int:
    """Remove the ``{{ … }}`` expressions from the text below ``root`` outside code; how many went."""
    removed = 0
    for owner, attr, text in texts_outside(root, _CODE, holding="{{"):
        if _TEX_COMMAND.search(text):
            continue
        cleaned, count = _EXPRESSION.subn("", text)
        if count:
            setattr(owner, attr, cleaned)
            removed += count
    return removed
