"""Chinese and English through gettext catalogues kept as Babel `.po` files (compiled in memory at start).

Message ids are English. Private messages follow the player's Telegram language (``DEFAULT_LANGUAGE``,
Chinese, where Telegram tells none), group messages the group's setting (Chinese until /settings changes it:
storage's default for a new group).
"""

from __future__ import annotations

import gettext
import io
from functools import cache
from pathlib import Path

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

LOCALES = Path(__file__).parent / "locales"
LANGUAGES = ("zh", "en")
DEFAULT_LANGUAGE = "zh"  # the language of a reader the bot knows no language of


def normalise(code: str | None, default: str = DEFAULT_LANGUAGE) -> str:
    """Telegram's language_code (``zh-hans``, ``en-US``…) to one of ours."""
    if not code:
        return default
    base = code.lower().split("-")[0].split("_")[0]
    return base if base in LANGUAGES else "en"


@cache
def translations(lang: str) -> gettext.NullTranslations:
    po = LOCALES / lang / "LC_MESSAGES" / "messages.po"
    if not po.exists():
        return gettext.NullTranslations()
    with po.open("rb") as f:
        catalog = read_po(f, locale=lang)
    buf = io.BytesIO()
    write_mo(buf, catalog)
    buf.seek(0)
    return gettext.GNUTranslations(buf)


def t(lang: str, msgid: str, **kwargs: object) -> str:
    text = translations(lang).gettext(msgid)
    return text.format(**kwargs) if kwargs else text


def tn(lang: str, singular: str, plural: str, n: int, **kwargs: object) -> str:
    """A text that shows a count: the form for ``n`` (English: one, other; Chinese has one form), with ``n``
    as ``{n}``. A count shown otherwise (signed points) passes its own placeholder and chooses the form by
    its size: ``tn(lang, "{points:+d} point", "{points:+d} points", abs(p), points=p)``."""
    text = translations(lang).ngettext(singular, plural, n)
    return text.format(n=n, **kwargs)
