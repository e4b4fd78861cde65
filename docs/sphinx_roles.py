"""A griffe extension of the documentation site (``mkdocs.yml``: mkdocstrings' ``extensions``):
the docstrings' Sphinx roles (``:class:`~nonsmooth.Result```, ``:func:`simulate```,
``:meth:`Result.plot```, ``:mod:``, ``:attr:``, ``:data:``, ``:exc:``, ``:obj:``) become
Markdown: the name as inline code, linked to its entry of the API reference when the reference
documents it (an optional cross-reference of mkdocs-autorefs: a name the reference does not show,
such as a private helper, stays plain code, not a broken link).

The name is resolved as Sphinx would: in the scope of the object whose docstring it is in (its
members, its module's imports, the enclosing packages), ``~`` shows the last component only,
``!`` asks for no link, ``title <target>`` shows the title.
"""

from __future__ import annotations

import html
import re
from typing import Any

from griffe import Extension, Object

#: A Sphinx role of the Python domain: ``:role:`text```, ``:py:role:`text```.
ROLE = re.compile(r":(?:py:)?(?:class|func|meth|mod|attr|data|exc|obj|const|type):`([^`]+)`")
TITLED = re.compile(r"^(.*?)\s*<([^<>]+)>$")


def _target(obj: Object, name: str) -> str | None:
    """The full path of ``name`` in the scope of ``obj``, or None when it does not resolve."""
    name = name.lstrip(".")
    if name.startswith("nonsmooth"):
        return name
    head, _, rest = name.partition(".")
    try:
        path = obj.resolve(head)
    except Exception:  # griffe's NameResolutionError, or an alias it cannot follow
        return None
    return f"{path}.{rest}" if rest else path


def role_to_markdown(obj: Object, match: re.Match) -> str:
    """One role as Markdown: inline code, inside an optional cross-reference where it resolves."""
    text = match.group(1).strip()
    titled = TITLED.match(text)
    title, name = titled.groups() if titled else (None, text)
    link = not name.startswith("!")
    name = name.lstrip("!")
    short = name.startswith("~")
    name = name.lstrip("~")
    shown = title or (name.lstrip(".").rsplit(".", 1)[-1] if short else name.lstrip("."))
    code = f"`{shown}`"
    target = _target(obj, name) if link else None
    if target is None:
        return code
    return f'<autoref identifier="{html.escape(target)}" optional>{code}</autoref>'


def convert(obj: Object, text: str) -> str:
    """A docstring with its Sphinx roles written as Markdown."""
    return ROLE.sub(lambda m: role_to_markdown(obj, m), text)


class SphinxRoles(Extension):
    """Rewrite each docstring's Sphinx roles once the object tree is complete."""

    def on_object(self, *, obj: Object, **kwargs: Any) -> None:
        if obj.docstring is not None and ":" in obj.docstring.value:
            obj.docstring.value = convert(obj, obj.docstring.value)
