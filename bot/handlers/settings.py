"""/settings: the group's house rules, turn time and language, for the table's creator or a group admin."""

from __future__ import annotations

from telegram import Update

from table import NotAllowed, TableError

from .. import codec
from ..i18n import t
from ..keyboards import settings_keyboard
from ..texts.answers import saved_text, settings_text
from .common import is_admin, reply, this_group, thread_of
from .context import CustomContext
from .group import in_the_group
from .refusals import refusal


@in_the_group
async def cmd_settings(update: Update, context: CustomContext) -> None:
    group = await this_group(context, update)
    user = update.effective_user
    service = context.desk.service
    thread = thread_of(update)
    allowed = await service.settings.may_change(
        group.id, user.id if user else None, thread_id=thread
    ) or await is_admin(update, context)
    if not allowed:
        await reply(
            context,
            update,
            t(group.language, "Only the table's creator or a group admin can change the settings."),
        )
        return
    table = await service.reads.table_in_group(group.id, thread)
    context.desk.presenter.settings_panel(
        group, settings_text(group, table), settings_keyboard(group), thread
    )


async def on_setting(update: Update, context: CustomContext, button: codec.Setting) -> None:
    query = update.callback_query
    assert query is not None
    group = await this_group(context, update)
    user = update.effective_user
    user_id = user.id if user else None
    desk = context.desk
    settings = desk.service.settings
    thread = thread_of(update)
    try:
        try:
            group, outcome, applies = await settings.change(
                group.id, user_id, button.change, thread_id=thread
            )
        except NotAllowed:
            # Telegram is asked whether he is an admin only when it matters.
            if not await is_admin(update, context):
                raise
            group, outcome, applies = await settings.change(
                group.id, user_id, button.change, is_admin=True, thread_id=thread
            )
    except NotAllowed as e:
        await query.answer(refusal(group.language, e, "settings"), show_alert=True)
        return
    except TableError as e:
        await query.answer(refusal(group.language, e, "settings"))
        return
    await query.answer(saved_text(group.language, applies))
    table = outcome.table if outcome is not None else None
    text, markup = settings_text(group, table), settings_keyboard(group)
    # The panel tapped and the group's live one (the same, unless an older one was tapped before it lost its
    # buttons) show the settings as they are now.
    for message_id in {query.message.message_id if query.message else None, group.settings_message_id} - {
        None
    }:
        assert message_id is not None
        desk.outbox.edit(group.id, message_id, text, markup)
    await desk.after(outcome)
