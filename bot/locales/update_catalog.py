"""Keep ``zh/LC_MESSAGES/messages.po`` in step with the code: ``python -m bot.locales.update_catalog``.

Extracts every ``t(lang, "…")`` / ``tn(lang, "…", "…", n)`` message from ``bot/`` (Babel's extractor) and
writes the catalogue, keeping the translations it already has. A ``tn`` message is a plural one (msgid,
msgid_plural and one msgstr per plural form of the language: Chinese has one). Message ids are English, so
English needs no catalogue.
"""

from __future__ import annotations

from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po, write_po

BOT = Path(__file__).resolve().parent.parent
KEYWORDS = {"t": (2,), "tn": (2, 3)}
METHODS = [("emulator/**.py", "ignore"), ("locales/**.py", "ignore"), ("**.py", "python")]

# A message as the code asks for it: its id, or a plural message's singular and plural ids.
Message = str | tuple[str, str]


def messages() -> list[Message]:
    """Every message of the code, in the order it first appears."""
    found: list[Message] = []
    for _file, _line, msg, _comments, _ctx in extract_from_dir(
        str(BOT), method_map=METHODS, keywords=KEYWORDS
    ):
        key: Message = msg if isinstance(msg, str) else (msg[0], msg[1])
        if key not in found:
            found.append(key)
    return found


def message_ids() -> list[str]:
    """The ids of every message (a plural message's singular names it)."""
    return [m if isinstance(m, str) else m[0] for m in messages()]


def update(lang: str = "zh", extra: dict[str, str] | None = None) -> Catalog:
    path = BOT / "locales" / lang / "LC_MESSAGES" / "messages.po"
    old: dict[str, str | tuple[str, ...]] = {}
    if path.exists():
        with path.open("rb") as f:
            # Keyed by the singular id, so that a message that became plural keeps its translation.
            for m in read_po(f, locale=lang):
                if not m.id:
                    continue
                key = m.id if isinstance(m.id, str) else m.id[0]
                old[key] = m.string if isinstance(m.string, str) else tuple(m.string or ())
    old.update(extra or {})
    catalog = Catalog(locale=lang, project="gouji-bot")
    forms = catalog.num_plurals
    for msg in messages():
        if isinstance(msg, str):
            kept = old.get(msg, "")
            catalog.add(msg, kept if isinstance(kept, str) else kept[-1])
        else:
            kept = old.get(msg[0], "")
            strings = (kept,) * forms if isinstance(kept, str) else (tuple(kept) + ("",) * forms)[:forms]
            catalog.add(msg, strings)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as f:
        write_po(f, catalog, width=0, omit_header=False)
    return catalog


def untranslated(catalog: Catalog) -> list[str]:
    """The ids of the messages without a translation (a plural one lacking any of its forms)."""
    out: list[str] = []
    for m in catalog:
        if not m.id:
            continue
        strings = (m.string,) if isinstance(m.string, str) else tuple(m.string or ())
        if not all(strings):
            out.append(m.id if isinstance(m.id, str) else m.id[0])
    return out


if __name__ == "__main__":
    missing = untranslated(update())
    print(f"{len(missing)} message(s) without a translation" + (": " + "; ".join(missing) if missing else ""))
