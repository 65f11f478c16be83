"""The page and its own routes: GET / (the page), /static/ (its script and style), GET /_pg/view (the
group and its players), POST /_pg/players (another human). Everything else the page does goes through
the emulator's /_emu/ control routes on the same server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aiohttp import web

if TYPE_CHECKING:
    from .server import Playground

STATIC = Path(__file__).parent / "static"
MAX_NAME = 64


def _json(body: dict[str, Any], status: int = 200) -> web.Response:
    return web.json_response(body, status=status, dumps=lambda v: json.dumps(v, ensure_ascii=False))


def register(app: web.Application, playground: Playground) -> None:
    async def index(request: web.Request) -> web.StreamResponse:
        return web.FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-store"})

    async def view(request: web.Request) -> web.Response:
        return _json({"ok": True, "result": playground.view()})

    async def add_player(request: web.Request) -> web.Response:
        try:
            body = await request.json()
        except ValueError:
            body = None
        if not isinstance(body, dict):
            return _json({"ok": False, "error": "the body must be a JSON object"}, 400)
        name = str(body.get("first_name", "")).strip()
        language = str(body.get("language_code", "en"))
        if not 0 < len(name) <= MAX_NAME:
            return _json({"ok": False, "error": f"a name is 1 to {MAX_NAME} characters"}, 400)
        if language not in playground.view()["languages"]:
            return _json({"ok": False, "error": f"no language {language!r}"}, 400)
        user = playground.add_player(name, language, started=bool(body.get("started", True)))
        return _json({"ok": True, "result": playground.emulator.world.user_summary(user)})

    app.router.add_get("/", index)
    app.router.add_static("/static/", STATIC)
    app.router.add_get("/_pg/view", view)
    app.router.add_post("/_pg/players", add_player)
