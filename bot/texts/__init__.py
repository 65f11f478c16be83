"""What players read, by reader: :mod:`bot.texts.group` (the lobby, the public table, the big moments, a
round's summary, the final standings), :mod:`bot.texts.player` (a player's hand, his turn and what became of
it, his end of a round, a refused move), :mod:`bot.texts.answers` (/help, /rules, /settings, /stats in
either chat) and :mod:`bot.texts.words` (what they share: seats, teams, places, cards, deadlines, house rules,
the glossary, the table's story).

The group's texts read only the match's public view; a hand is worded only in a player's, from his seat's
own view. Pure functions, no I/O: the time is passed in. The keyboards are in :mod:`bot.keyboards`.
"""
