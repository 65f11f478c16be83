"use strict";
// The playground page. It draws the emulated chats from the emulator's control API (/_emu/) and acts
// through it as the users would: tap a button, type a message, press Start. It learns of changes by
// long-polling /_emu/events, and re-reads a chat whenever an event names it.

const GROUP_COMMANDS = ["/new", "/join", "/addbot", "/begin", "/table", "/rules", "/settings", "/stats", "/stop", "/help"];
const EVENT_TIMEOUT = 25;
const NOTICE_SECONDS = 5;

const state = {
  view: null,
  panes: new Map(), // chat id -> Pane
  names: new Map(), // user id -> first name
  lastSeq: 0,
  answersSeen: new Set(),
};

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "className") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children) {
    if (child !== null && child !== undefined) node.append(child);
  }
  return node;
}

async function call(method, path, body) {
  const options = { method, headers: {} };
  if (body !== undefined) {
    options.body = JSON.stringify(body);
    options.headers["Content-Type"] = "application/json";
  }
  const response = await fetch(path, options);
  const data = await response.json();
  if (!data.ok) throw new Error(data.error || data.description || `HTTP ${response.status}`);
  return data.result;
}

function setStatus(text) {
  document.getElementById("status").textContent = text;
}

// A deep link to the bot (t.me/<bot>?start=<payload>): in Telegram it opens the private chat and Start sends
// "/start <payload>"; here the page does both for the user who tapped.
function deepLinkPayload(url) {
  try {
    const parsed = new URL(url);
    const bot = state.view.bot.username.toLowerCase();
    if (parsed.hostname === "t.me" && parsed.pathname.slice(1).toLowerCase() === bot) {
      return parsed.searchParams.get("start") || "";
    }
  } catch (error) {
    // not a URL the page understands: opened as a link below
  }
  return null;
}

function serviceText(message) {
  const who = state.names.get(message.sender_id) || "someone";
  const service = message.service || {};
  if (service.group_chat_created) return `${who} created the group and added the bot`;
  if (service.new_chat_members) {
    return `${service.new_chat_members.map((u) => u.first_name).join(", ")} joined the group`;
  }
  if (service.left_chat_member) return `${service.left_chat_member.first_name} left the group`;
  return Object.keys(service).join(", ");
}

class Pane {
  constructor({ chatId, kind, title, userId }) {
    this.chatId = chatId;
    this.kind = kind;
    this.userId = userId;
    this.nodes = new Map(); // message id -> [signature, element]
    this.busy = false;
    this.again = false;
    this.noticeTimer = null;
    this.title = el("h2", {}, title);
    this.sub = el("div", { className: "sub" });
    this.notice = el("div", { className: "notice", role: "status" });
    this.list = el("div", { className: "messages" });
    this.footer = el("footer");
    this.root = el(
      "section",
      { className: "pane", "data-chat-id": chatId, "data-kind": kind, "data-user-id": userId },
      el("header", {}, this.title, this.sub),
      this.notice,
      this.list,
      this.footer,
    );
    this.buildFooter();
  }

  buildFooter() {
    this.footer.replaceChildren();
    if (this.kind === "group") {
      this.speaker = el("select", { name: "speaker", title: "who taps and types in the group" });
      this.footer.append(
        el("label", { className: "speaker" }, "Acting in the group as ", this.speaker),
        el(
          "div",
          { className: "commands" },
          ...GROUP_COMMANDS.map((command) =>
            el("button", { type: "button", "data-command": command, onclick: () => this.send(command) }, command),
          ),
        ),
      );
    }
    this.startButton = el(
      "button",
      { type: "button", className: "start", hidden: true, onclick: () => this.pressStart(null) },
      "Start (open the private chat with the bot)",
    );
    this.input = el("input", { name: "text", placeholder: this.kind === "group" ? "Message the group" : "Type a play (TTTT2, pass), or /help" });
    this.footer.append(
      this.startButton,
      el(
        "form",
        {
          className: "compose",
          onsubmit: (event) => {
            event.preventDefault();
            const text = this.input.value;
            if (text.trim()) this.send(text).then((sent) => sent && (this.input.value = ""));
          },
        },
        this.input,
        el("button", { type: "submit" }, "Send"),
      ),
    );
  }

  // The user acting in this pane: the private chat's owner, or whoever is chosen to speak in the group.
  actor() {
    return this.kind === "group" ? Number(this.speaker.value) : this.userId;
  }

  update(view) {
    if (this.kind === "group") {
      const chosen = this.speaker.value;
      this.speaker.replaceChildren(...view.players.map((p) => el("option", { value: p.id }, p.first_name)));
      if (chosen) this.speaker.value = chosen;
      this.sub.textContent = `Members: ${view.players.map((p) => p.first_name).join(", ")} · bot: ${view.bot.first_name}`;
    } else {
      const user = view.players.find((p) => p.id === this.userId);
      const started = user && user.started_bot && !user.blocked_bot;
      this.sub.textContent = `Private chat with ${view.bot.first_name} · Telegram language: ${user.language_code}`;
      this.startButton.hidden = started;
      this.input.disabled = !started;
    }
  }

  show(text, kind = "info") {
    clearTimeout(this.noticeTimer);
    this.notice.className = `notice ${kind}`;
    this.notice.textContent = text;
    if (kind === "info") {
      this.noticeTimer = setTimeout(() => {
        this.notice.textContent = "";
      }, NOTICE_SECONDS * 1000);
    } else {
      this.notice.append(" ", el("button", { type: "button", onclick: () => this.show("") }, "OK"));
    }
  }

  async act(description, promise) {
    try {
      return await promise;
    } catch (error) {
      this.show(`${description}: ${error.message}`, "error");
      return null;
    }
  }

  async send(text) {
    return this.act("Could not send", call("POST", "/_emu/messages", { user_id: this.actor(), chat_id: this.chatId, text }));
  }

  async pressStart(payload) {
    const user = this.actor();
    const body = payload ? { payload } : {};
    const done = await this.act("Could not start the bot", call("POST", `/_emu/users/${user}/start`, body));
    if (done && this.kind === "group") {
      this.show(`${state.names.get(user)} opened the private chat with the bot and pressed Start.`);
    }
  }

  tap(message, button) {
    if (button.callback_data !== undefined) {
      this.act(
        "Could not tap",
        call("POST", "/_emu/tap", { user_id: this.actor(), chat_id: this.chatId, message_id: message.message_id, data: button.callback_data }),
      );
    } else if (button.url) {
      const payload = deepLinkPayload(button.url);
      if (payload === null) window.open(button.url, "_blank", "noopener");
      else this.pressStart(payload);
    }
  }

  drawMessage(message) {
    if (message.service && Object.keys(message.service).length) {
      return el("div", { className: "msg service", "data-message-id": message.message_id }, serviceText(message));
    }
    const mine = !message.from_bot;
    const node = el("div", { className: `msg ${mine ? "user" : "bot"}`, "data-message-id": message.message_id });
    if (this.kind === "group" || !mine) {
      node.append(el("div", { className: "from" }, state.names.get(message.sender_id) || String(message.sender_id)));
    }
    if (message.reply_to_message_id) {
      const [, replied] = this.nodes.get(message.reply_to_message_id) || [];
      const quoted = replied ? replied.querySelector(".text")?.textContent || "" : "";
      node.append(el("div", { className: "quote" }, quoted.split("\n")[0] || `#${message.reply_to_message_id}`));
    }
    node.append(el("div", { className: "text" }, message.text || ""));
    const rows = (message.reply_markup && message.reply_markup.inline_keyboard) || [];
    if (rows.length) {
      const keyboard = el("div", { className: "keyboard" });
      for (const row of rows) {
        keyboard.append(
          el(
            "div",
            { className: "row" },
            ...row.map((button) =>
              el(
                "button",
                {
                  type: "button",
                  className: button.url ? "url" : "callback",
                  "data-callback": button.callback_data,
                  "data-url": button.url,
                  title: button.text,
                  onclick: () => this.tap(message, button),
                },
                button.text,
              ),
            ),
          ),
        );
      }
      node.append(keyboard);
    }
    const edits = (message.history || []).length - 1;
    // Telegram shows a silent message without a sound: the playground says which rang.
    const meta = [message.from_bot ? (message.silent ? "🔕 silent" : "🔔 rang") : "", edits === 1 ? "edited" : edits > 1 ? `edited ${edits}×` : ""];
    const said = meta.filter(Boolean).join(" · ");
    if (said) node.append(el("div", { className: "meta" }, said));
    return node;
  }

  render(messages) {
    const atBottom = this.list.scrollHeight - this.list.scrollTop - this.list.clientHeight < 60;
    const shown = messages.filter((m) => !m.deleted);
    const keep = new Set(shown.map((m) => m.message_id));
    for (const [id, [, node]] of this.nodes) {
      if (!keep.has(id)) {
        node.remove();
        this.nodes.delete(id);
      }
    }
    let previous = null;
    for (const message of shown) {
      const signature = JSON.stringify([message.text, message.reply_markup, message.history.length, message.service]);
      const known = this.nodes.get(message.message_id);
      let node = known && known[1];
      if (!known || known[0] !== signature) {
        const fresh = this.drawMessage(message);
        if (node) node.replaceWith(fresh);
        node = fresh;
        this.nodes.set(message.message_id, [signature, node]);
      }
      const wanted = previous ? previous.nextSibling : this.list.firstChild;
      if (wanted !== node) this.list.insertBefore(node, wanted);
      previous = node;
    }
    if (atBottom) this.list.scrollTop = this.list.scrollHeight;
  }

  refresh() {
    if (this.busy) {
      this.again = true;
      return;
    }
    this.busy = true;
    call("GET", `/_emu/chats/${this.chatId}/messages`)
      .then((messages) => this.render(messages))
      .catch((error) => this.show(`Could not read the chat: ${error.message}`, "error"))
      .finally(() => {
        this.busy = false;
        if (this.again) {
          this.again = false;
          this.refresh();
        }
      });
  }
}

async function loadView() {
  const view = await call("GET", "/_pg/view");
  state.view = view;
  state.names = new Map([[view.bot.id, view.bot.first_name], ...view.players.map((p) => [p.id, p.first_name])]);
  const panes = document.getElementById("panes");
  const wanted = [{ chatId: view.group.id, kind: "group", title: `${view.group.title} — group chat` }].concat(
    view.players.map((p) => ({ chatId: p.id, kind: "private", title: `${p.first_name} — private chat`, userId: p.id })),
  );
  for (const spec of wanted) {
    let pane = state.panes.get(spec.chatId);
    if (!pane) {
      pane = new Pane(spec);
      state.panes.set(spec.chatId, pane);
      panes.append(pane.root);
      pane.refresh();
    }
    pane.update(view);
  }
  return view;
}

async function showAnswers(initial) {
  const answers = await call("GET", "/_emu/callback_answers");
  for (const answer of answers) {
    if (state.answersSeen.has(answer.id)) continue;
    state.answersSeen.add(answer.id);
    const pane = state.panes.get(answer.chat_id);
    if (initial || !pane || !answer.text) continue;
    const who = pane.kind === "group" ? `(to ${state.names.get(answer.user_id)}) ` : "";
    pane.show(who + answer.text, answer.show_alert ? "alert" : "info");
  }
}

const CHAT_EVENTS = new Set(["bot_message", "bot_edit", "deleted", "user_message", "service_message", "pinned"]);
const VIEW_EVENTS = new Set(["user_created", "group_created", "bot_started", "bot_blocked"]);

async function followEvents() {
  for (;;) {
    let batch;
    try {
      batch = await call("GET", `/_emu/events?after=${state.lastSeq}&timeout=${EVENT_TIMEOUT}`);
      setStatus("");
    } catch (error) {
      setStatus("The playground is not answering (stopped?); retrying…");
      await new Promise((resolve) => setTimeout(resolve, 2000));
      continue;
    }
    if (batch.last_seq < state.lastSeq) {
      // The playground was restarted: its chats are new ones.
      window.location.reload();
      return;
    }
    state.lastSeq = batch.last_seq;
    const dirty = new Set();
    let viewChanged = false;
    let answered = false;
    for (const event of batch.events) {
      if (CHAT_EVENTS.has(event.kind)) dirty.add(event.chat_id);
      else if (VIEW_EVENTS.has(event.kind)) viewChanged = true;
      else if (event.kind === "api_call" && event.method === "answerCallbackQuery") answered = true;
    }
    try {
      if (viewChanged) await loadView();
      for (const chatId of dirty) state.panes.get(chatId)?.refresh();
      if (answered) await showAnswers(false);
    } catch (error) {
      setStatus(error.message);
    }
  }
}

function setUpAddPlayer(view) {
  const form = document.getElementById("add-player");
  form.language_code.replaceChildren(...view.languages.map((code) => el("option", { value: code }, code)));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const body = {
      first_name: form.first_name.value.trim(),
      language_code: form.language_code.value,
      started: form.started.checked,
    };
    try {
      await call("POST", "/_pg/players", body);
      form.first_name.value = "";
      await loadView();
    } catch (error) {
      setStatus(error.message);
    }
  });
}

async function main() {
  const view = await loadView();
  state.lastSeq = view.last_seq;
  await showAnswers(true);
  setUpAddPlayer(view);
  document.body.dataset.ready = "1";
  followEvents();
}

main().catch((error) => setStatus(`The page could not start: ${error.message}`));
