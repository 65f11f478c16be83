"""Keep ``zh/LC_MESSAGES/messages.po`` in step with the code: ``python -m bot.locales.update_catalog``.

Extracts every ``t(lang, "…")`` / ``tn(lang, "…", "…", n)`` message id from ``bot/`` (Babel's extractor) and
writes the catalogue, keeping the translations it already has. Message ids are English, so English needs
no catalogue.
"""

from __future__ import annotations

from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po, write_po

BOT = Path(__file__).resolve().parent.parent
KEYWORDS = {"t": (2,), "tn": (2, 3)}
METHODS = [("emulator/**.py", "ignore"), ("locales/**.py", "ignore"), ("**.py", "python")]


def message_ids() -> list[str]:
    ids: list[str] = []
    for _file, _line, msg, _comments, _ctx in extract_from_dir(
        str(BOT), method_map=METHODS, keywords=KEYWORDS
    ):
        key = msg if isinstance(msg, str) else msg[0]
        if key not in ids:
            ids.append(key)
    return ids


def update(lang: str = "zh", extra: dict[str, str] | None = None) -> Catalog:
    path = BOT / "locales" / lang / "LC_MESSAGES" / "messages.po"
    old: dict[str, str] = {}
    if path.exists():
        with path.open("rb") as f:
            # The catalogue holds singular ids only (message_ids takes a plural's singular).
            old = {
                m.id: m.string
                for m in read_po(f, locale=lang)
                if isinstance(m.id, str) and m.id and isinstance(m.string, str)
            }
    old.update(extra or {})
    catalog = Catalog(locale=lang, project="gouji-bot")
    for msgid in message_ids():
        catalog.add(msgid, old.get(msgid, ""))
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as f:
        write_po(f, catalog, width=0, omit_header=False)
    return catalog


if __name__ == "__main__":
    # A plural message (tn) has the ids of its forms: its singular names it.
    missing = [m.id if isinstance(m.id, str) else m.id[0] for m in update() if m.id and not m.string]
    print(f"{len(missing)} message(s) without a translation" + (": " + "; ".join(missing) if missing else ""))
