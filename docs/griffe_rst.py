"""A Griffe extension for the API reference (mkdocs.yml): the docstrings' reStructuredText bits as Markdown.

pi-env's docstrings are Google style, and they cross-reference with Sphinx roles
(:class:`~pi_env.engine.State`, :func:`observe`), lay out tables as reST *simple tables*
(``=====  =====`` rulers) and introduce examples with ``::``. They read well in ``help()``; for the
site this extension rewrites them, in the loaded copy only (the source is never changed), before
mkdocstrings renders them:

* a role becomes an *optional* autorefs cross-reference: a link when the target is rendered
  somewhere in the site, plain code otherwise (no warning). The target is looked up as Python
  would see it from the docstring's object: a member of the object or of an enclosing class,
  module or package, then an absolute ``pi_env...`` path; an alias (a re-export such as
  ``pi_env.engine.State``) is followed to the object's own page. A name found nowhere (the standard
  library, numpy) stays code. ``~`` shows the last component, as in Sphinx;
* a simple table becomes a Markdown table (a row whose first column is empty, or whose other
  columns are all empty, continues the row above);
* ``text::`` before an indented block becomes ``text:`` (the block is code in Markdown too);
* an ``Args:`` entry naming several parameters (``out, mask, gains: as in ...``) becomes one entry
  per parameter with that description, so that Griffe still checks every name against the signature.
"""

from __future__ import annotations

import html
import re
from typing import Any

import griffe

ROLE = re.compile(r":(?:py:)?(class|func|meth|mod|data|attr|exc|obj|const):`([^`]+)`")
ARGS_SECTION = re.compile(r"^(\s*)(?:Args|Arguments|Parameters|Other Parameters|Keyword Args|Attributes):\s*$")
GROUPED = re.compile(r"^(\s+)(\*{0,2}\w+(?:\s*,\s*\*{0,2}\w+)+)(\s*\([^)]*\))?:(\s.*|)$")
RULER = re.compile(r"^(\s*)(=+)((?: +=+)+)\s*$")


def _spans(ruler: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in re.finditer(r"=+", ruler)]


def _cells(line: str, spans: list[tuple[int, int]]) -> list[str]:
    out = []
    for k, (a, _) in enumerate(spans):
        b = spans[k + 1][0] if k + 1 < len(spans) else len(line)
        out.append(line[a:b].strip())
    return out


def simple_tables_to_markdown(text: str) -> str:
    """Every reST simple table of ``text`` (header row between the first two rulers) as a
    Markdown pipe table; other text unchanged."""
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        m = RULER.match(lines[i])
        # a table: ruler, header line(s), ruler, rows, ruler
        j = i + 1
        while m and j < len(lines) and not RULER.match(lines[j]) and lines[j].strip():
            j += 1
        k = j + 1
        while m and k < len(lines) and not RULER.match(lines[k]):
            k += 1
        if not m or j >= len(lines) or k >= len(lines) or lines[j].strip() != lines[i].strip():
            out.append(lines[i])
            i += 1
            continue
        indent, spans = m.group(1), _spans(lines[i])
        header = [" ".join(c) for c in zip(*(_cells(x, spans) for x in lines[i + 1:j]))]
        rows: list[list[str]] = []
        for line in lines[j + 1:k]:
            if not line.strip():
                continue
            cells = _cells(line, spans)
            if rows and (not cells[0] or not any(cells[1:])):
                rows[-1] = [f"{a} {b}".strip() for a, b in zip(rows[-1], cells)]
            else:
                rows.append(cells)
        out.append("")
        for row in [header, ["---"] * len(spans), *rows]:
            out.append(indent + "| " + " | ".join(c.replace("|", "\\|") for c in row) + " |")
        out.append("")
        i = k + 1
    return "\n".join(out)


def split_grouped_args(text: str) -> str:
    """``a, b: text`` entries of Args-like sections as ``a: text`` and ``b: text`` (with any
    continuation lines of the entry repeated)."""
    lines = text.split("\n")
    out: list[str] = []
    section: int | None = None  # indent of the current Args-like section header
    i = 0
    while i < len(lines):
        line = lines[i]
        indent = len(line) - len(line.lstrip())
        if ARGS_SECTION.match(line):
            section = indent
        elif line.strip() and section is not None and indent <= section:
            section = None
        m = GROUPED.match(line) if section is not None else None
        if m is None:
            out.append(line)
            i += 1
            continue
        entry = len(m.group(1))
        j = i + 1
        while j < len(lines) and lines[j].strip() and len(lines[j]) - len(lines[j].lstrip()) > entry:
            j += 1
        for name in re.split(r"\s*,\s*", m.group(2)):
            out.append(f"{m.group(1)}{name}{m.group(3) or ''}:{m.group(4)}")
            out.extend(lines[i + 1:j])
        i = j
    return "\n".join(out)


class RstToMarkdown(griffe.Extension):
    """Rewrites the docstrings of a loaded package (see the module docstring)."""

    def on_package(self, *, pkg: griffe.Module, loader: griffe.GriffeLoader, **kwargs: Any) -> None:
        if pkg.path != "pi_env":
            return
        self._collection = loader.modules_collection
        self._walk(pkg, seen=set())

    def _walk(self, obj: griffe.Object, seen: set[str]) -> None:
        if obj.path in seen:
            return
        seen.add(obj.path)
        if obj.docstring is not None:
            obj.docstring.value = self._convert(obj.docstring.value, obj)
        for member in list(obj.members.values()):
            if not member.is_alias:
                self._walk(member, seen)  # type: ignore[arg-type]

    def _lookup(self, path: str) -> griffe.Object | None:
        try:
            found = self._collection.get_member(path)
            return found.final_target if found.is_alias else found
        except (KeyError, ValueError, IndexError, griffe.AliasResolutionError, griffe.CyclicAliasError):
            return None  # not in pi_env, or an alias of an object outside it (json, numpy)

    def _resolve(self, name: str, obj: griffe.Object) -> str | None:
        """The rendered path of ``name`` as seen from ``obj``, or None."""
        scope: griffe.Object | None = obj if (obj.is_module or obj.is_class) else obj.parent
        while scope is not None:
            target = self._lookup(f"{scope.path}.{name}")
            if target is None and scope.is_class:  # an inherited member
                head, _, rest = name.partition(".")
                member = scope.all_members.get(head)  # type: ignore[union-attr]
                if member is not None:
                    target = self._lookup(f"{member.path}.{rest}" if rest else member.path)
            if target is not None:
                return target.path
            scope = scope.parent
        target = self._lookup(name)
        return target.path if target is not None else None

    def _role(self, m: re.Match, obj: griffe.Object) -> str:
        text = m.group(2).strip()
        short = text.startswith("~")
        name = text.lstrip("~!")
        if "<" in name and name.endswith(">"):  # :func:`title <target>`
            title, name = name[:name.index("<")].strip(), name[name.index("<") + 1:-1].strip()
        else:
            title = name.split(".")[-1] if short else name
        title_html = f"<code>{html.escape(title)}</code>"
        path = self._resolve(name.removesuffix("()"), obj)
        if path is None:
            return f"`{title}`"
        return f'<autoref identifier="{html.escape(path)}" optional>{title_html}</autoref>'

    def _convert(self, text: str, obj: griffe.Object) -> str:
        text = ROLE.sub(lambda m: self._role(m, obj), text)
        text = simple_tables_to_markdown(text)
        text = split_grouped_args(text)
        text = re.sub(r"(\S)::(\n[ \t]*\n[ \t]+\S)", r"\1:\2", text)  # "example::" + indented block
        return re.sub(r"(?m)^([ \t]*)::\n", "", text)
