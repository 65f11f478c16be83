"""/settings: the group's house rules, turn time and language, for the table's creator or a group admin."""

from __future__ import annotations

from telegram import Update

from table import NotAllowed, TableError

from .. import codec
from ..i18n import t
from ..keyboards import settings_keyboard
from ..texts.answers import settings_text
from .common import is_admin, reply, this_group
from .context import CustomContext
from .group import in_the_group
from .refusals import refusal


@in_the_group
async def cmd_settings(update: Update, context: CustomContext) -> None:
    group = await this_group(context, update)
    user = update.effective_user
    allowed = await context.desk.service.settings.may_change(
        group.id, user.id if user else None
    ) or await is_admin(update, context)
    if not allowed:
        await reply(
            context,
            update,
            t(group.language, "Only the table's creator or a group admin can change the settings."),
        )
        return
    await reply(context, update, settings_text(group), settings_keyboard(group))


async def on_setting(update: Update, context: CustomContext, button: codec.Setting) -> None:
    query = update.callback_query
    assert query is not None
    group = await this_group(context, update)
    user = update.effective_user
    user_id = user.id if user else None
    desk = context.desk
    settings = desk.service.settings
    try:
        try:
            group, outcome = await settings.change(group.id, user_id, button.change)
        except NotAllowed:
            # Telegram is asked whether he is an admin only when it matters.
            if not await is_admin(update, context):
                raise
            group, outcome = await settings.change(group.id, user_id, button.change, is_admin=True)
    except NotAllowed as e:
        await query.answer(refusal(group.language, e, "settings"), show_alert=True)
        return
    except TableError as e:
        await query.answer(refusal(group.language, e, "settings"))
        return
    await query.answer(t(group.language, "Saved."))
    if query.message is not None:
        desk.outbox.edit(group.id, query.message.message_id, settings_text(group), settings_keyboard(group))
    await desk.after(outcome)
