"""/settings: the group's house rules, turn time and language, for the table's creator or a group admin."""

from __future__ import annotations

from telegram import Update
from telegram.ext import ContextTypes

from table import NotAllowed, NothingToDo

from .. import codec, render
from ..i18n import t
from ..keyboards import settings_keyboard
from .common import desk, is_admin, reply, this_group
from .group import in_the_group


@in_the_group
async def cmd_settings(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    group = await this_group(context, update)
    user = update.effective_user
    service = desk(context).service
    allowed = await service.may_change_settings(group.id, user.id if user else None) or await is_admin(
        update, context
    )
    if not allowed:
        await reply(
            context,
            update,
            t(group.language, "Only the table's creator or a group admin can change the settings."),
        )
        return
    await reply(context, update, render.settings_text(group), settings_keyboard(group))


async def on_setting(update: Update, context: ContextTypes.DEFAULT_TYPE, button: codec.Setting) -> None:
    query = update.callback_query
    assert query is not None
    group = await this_group(context, update)
    user = update.effective_user
    user_id = user.id if user else None
    service = desk(context).service
    try:
        try:
            group, outcome = await service.change_settings(group.id, user_id, button.change)
        except NotAllowed:
            if not await is_admin(update, context):
                raise
            group, outcome = await service.change_settings(group.id, user_id, button.change, is_admin=True)
    except NotAllowed:
        await query.answer(
            t(group.language, "Only the table's creator or a group admin can change the settings."),
            show_alert=True,
        )
        return
    except NothingToDo:
        await query.answer(t(group.language, "That button is out of date."))
        return
    await query.answer(t(group.language, "Saved."))
    if query.message is not None:
        desk(context).outbox.edit(
            group.id, query.message.message_id, render.settings_text(group), settings_keyboard(group)
        )
    await desk(context).after(outcome)
