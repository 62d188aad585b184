// The table page: one WebSocket; the server sends this seat's view after every change, the page
// draws it (any game: zones, cards and values as the observation gives them) and sends moves.
"use strict";
const token = location.pathname.split("/").pop();
const $ = (id) => document.getElementById(id);
let ws = null, frame = null, logCount = 0, deadline = 0, total = 0, timer = null, retry = 500, fatal = false;
let windowClock = null;  // the clock of the question whose countdown runs (the server's f.window.clock)
let queued = null;  // a move clicked while the connection was down: sent when it is back (or refused then)
const connected = () => ws && ws.readyState === WebSocket.OPEN;

// A player as people call them: the name they gave at their seat, with the seat ("Ann (P2)").
function who(p) {
  const seat = frame && (frame.seats || []).find((s) => s.name === p);
  return seat && seat.nickname ? `${seat.nickname} (${p})` : p;
}
// Seat names (P1, P2...) inside a text (a move, a line of the log) as people call them.
const named = (text) => String(text).replace(/\bP\d+\b/g, who);

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

// A card (or any text holding card names): in the colour its attributes give it (the game's
// /api/game "colours": Beacons' "B3" is blue); else red suits red, a colour word marks the chip.
let colours = {};
function cardEl(text) {
  const e = el("span", "card", text);
  const t = String(text);
  if (colours[t]) { e.classList.add(colours[t]); return e; }
  if (/[♥♦♡♢]/.test(t)) e.classList.add("red");
  for (const c of ["red", "yellow", "green", "blue"]) if (new RegExp("\\b" + c + "\\b", "i").test(t)) e.classList.add(c);
  return e;
}

function cardsEl(list) {
  const span = el("span");
  if (!list.length) span.append(el("span", "count", "—"));
  for (const c of list) span.append(cardEl(c));
  return span;
}

// Shared families of zones as tableaus: a column per zone, headed by its label, its cards from the
// bottom down to the top; families with the same members share one, one above the other.
function tableaus(families, into) {
  const byMembers = {};
  for (const members of Object.values(families)) {
    const key = members.map(([n]) => n.slice(n.indexOf("["))).join(",");
    (byMembers[key] = byMembers[key] || []).push(members);
  }
  for (const group of Object.values(byMembers)) {
    if (group.every((members) => members.every(([, v]) => !Array.isArray(v)))) {  // piles by count and top: a row
      for (const members of group) for (const [name, v] of members) {
        const d = el("div", "zone"); d.append(el("b", "", label(name) + ": "), zoneEl(v)); into.append(d);
      }
      continue;
    }
    const t = el("table", "tableau"), head = el("tr");
    for (const [name] of group[group.length - 1]) head.append(el("th", "", label(name)));
    t.append(head);
    const tr = el("tr");
    group[0].forEach((_, k) => {
      const td = el("td");
      for (const members of group) {
        const v = members[k][1];
        const cells = Array.isArray(v) ? v.map(cardEl) : [zoneEl(v)];
        if (!cells.length) cells.push(el("span", "muted", "—"));
        for (const c of cells) { const d = el("div"); d.append(c); td.append(d); }
      }
      tr.append(td);
    });
    t.append(tr);
    into.append(t);
  }
}

function zoneEl(v) {
  if (Array.isArray(v)) return cardsEl(v);
  if (v && typeof v === "object") {
    const span = el("span");
    if (v.top !== undefined && v.top !== null) { span.append("top ", cardEl(v.top), " "); }
    let count = v.backs ? Object.entries(v.backs).map(([b, k]) => `${k} ${b}`).join(", ")
                        : `${v.count} card${v.count === 1 ? "" : "s"}`;
    span.append(el("span", "count", v.top !== undefined && v.top !== null ? `(${count})` : count));
    if (v.known && v.known.length) { span.append(el("span", "count", " — you know "), cardsEl(v.known)); }
    if (v.told && v.told.length) { span.append(el("span", "count", " — told: " + toldText(v.told))); }
    return span;
  }
  return el("span", "", String(v));
}

// What a seat was told of the cards it does not see, by place: "1: red · 2: not red, not 1 · 3: ?".
function toldText(told) {
  return told.map((t, k) => `${k + 1}: ${t}`).join(" · ");
}

function valueText(v) {
  if (v === null || v === undefined) return "—";
  if (typeof v === "boolean") return v ? "yes" : "no";
  if (typeof v === "object") return Object.entries(v).map(([k, x]) => x === true ? k : `${k} ${valueText(x)}`).join(", ") || "—";
  return String(v);
}

function playersOf(view) {
  for (const v of [...Object.values(view.zones || {}), ...Object.values(view.vars || {})]) {
    if (v && typeof v === "object" && !Array.isArray(v)) {
      const keys = Object.keys(v);
      if (keys.length && keys.every((k) => /^P\d+$/.test(k))) return keys;
    }
  }
  return (frame.seats || []).map((s) => s.name);
}

// What the game file calls a zone or a value (its label), else its name with spaces.
const label = (name) => (frame.view.labels || {})[name] || name.replace(/_/g, " ");

function perPlayer(v, players) {
  return v && typeof v === "object" && !Array.isArray(v) && Object.keys(v).length === players.length &&
    players.every((p) => p in v);
}

function draw() {
  const f = frame, view = f.view;
  document.title = `${f.game} — ${f.seat ? who(f.seat) : "spectator"}`;
  $("game").textContent = f.game;
  $("where").textContent = `round ${view.round}, move ${view.move}`;
  $("seat").textContent = f.seat ? `you are ${who(f.seat)}` : "spectating";
  const opts = Object.entries(f.options || {});
  $("options").textContent = opts.length ? "options: " + opts.map(([k, v]) => `${k} = ${v}`).join(", ") : "";
  const mine = f.seat && f.seats.find((s) => s.name === f.seat);
  $("name-form").hidden = !f.seat || Boolean(mine && mine.nickname) || f.over;
  const st = $("status");
  st.className = "";
  if (f.stopped) st.textContent = "stopped: " + f.stopped;
  else if (f.over) st.textContent = "game over";
  else if (f.legal.length) { st.textContent = f.window ? "quick!" : "your move"; st.className = "mine"; }
  else if (f.answered) st.textContent = "answered: waiting for the others";
  else if (view.to_move) st.textContent = `${who(view.to_move)} to move`;
  else st.textContent = "waiting…";

  // the moves
  const moves = $("moves");
  moves.replaceChildren();
  moves.className = f.window ? "window" : "";
  if (!f.legal.length) moves.append(el("span", "muted", f.answered ? "your answer is in" : "—"));
  for (const m of f.legal) {
    const b = el("button", "move", named(m.text));
    b.dataset.move = m.move;
    b.onclick = () => send(m.move);
    b.disabled = queued !== null;
    moves.append(b);
  }
  // the reaction window's countdown
  clearInterval(timer);
  if (f.window && f.legal.length && f.window.kind === "simultaneous") {  // a secret choice: no clock
    $("countdown").hidden = true; $("seconds").hidden = true;
    $("windowtext").textContent = "Choose in secret: everyone's choices are shown together, once all have chosen.";
  } else if (f.window && f.legal.length) {
    if (f.window.clock !== windowClock) {  // a question, or its clock started anew (after a restart): from the time left it was sent
      windowClock = f.window.clock; total = f.window.total; deadline = performance.now() + f.window.left * 1000;
    }
    $("countdown").hidden = false; $("seconds").hidden = false;
    $("windowtext").textContent = f.window.kind === "race" ? "Race! Everyone answers at once; the fastest counts first."
      : "React now, or let it pass: everyone asked answers at once, the fastest counts.";
    tick(); timer = setInterval(tick, 100);
  } else { $("countdown").hidden = true; $("seconds").hidden = true; $("windowtext").textContent = ""; }

  // shared zones and values
  const players = playersOf(view);
  const shared = $("shared");
  shared.replaceChildren();
  const families = {};  // a family of zones (column[1] .. column[7]): a tableau, a column per zone
  for (const [name, v] of Object.entries(view.zones || {})) {
    if (perPlayer(v, players)) continue;
    const m = /^(.*)\[(.*)\]$/.exec(name);
    if (m) { (families[m[1]] = families[m[1]] || []).push([name, v]); continue; }
    const d = el("div", "zone"); d.append(el("b", "", label(name) + ": "), zoneEl(v)); shared.append(d);
  }
  tableaus(families, shared);
  for (const [name, v] of Object.entries(view.vars || {})) {
    if (perPlayer(v, players)) continue;
    const d = el("div", "var"); d.append(el("b", "", label(name) + ": "), el("span", "", valueText(v))); shared.append(d);
  }
  // the players
  const pz = Object.keys(view.zones || {}).filter((z) => perPlayer(view.zones[z], players));
  const pv = Object.keys(view.vars || {}).filter((z) => perPlayer(view.vars[z], players));
  const table = el("table", "players"), head = el("tr");
  head.append(el("th", "", ""));
  for (const z of pz) head.append(el("th", "", label(z)));
  for (const v of pv) head.append(el("th", "", label(v)));
  table.append(head);
  const out = new Set(view.eliminated || []);
  const teamOf = new Map();  // `players 4 in 2 teams`: the team of each player, from 1
  (view.teams || []).forEach((team, k) => team.forEach((p) => teamOf.set(p, k + 1)));
  for (const p of players) {
    const tr = el("tr", (p === f.seat ? "me " : "") + (p === view.to_move ? "tomove" : ""));
    const td = el("td", "", who(p));
    const seat = f.seats.find((s) => s.name === p);
    if (p === f.seat) td.append(el("span", "muted", " (you)"));
    else if (teamOf.has(f.seat) && teamOf.get(p) === teamOf.get(f.seat)) td.append(el("span", "online", " (partner)"));
    if (teamOf.has(p)) td.append(el("span", "muted", " team " + teamOf.get(p)));
    if (out.has(p)) td.append(el("span", "offline", " (out)"));
    if (seat) td.append(el("div", seat.kind === "human" ? (seat.online ? "online" : "offline") : "muted",
                           seat.kind === "human" ? (seat.online ? "online" : "away") : seat.kind + " bot"));
    tr.append(td);
    for (const z of pz) { const c = el("td"); c.dataset.label = label(z); c.append(zoneEl(view.zones[z][p])); tr.append(c); }
    for (const v of pv) { const c = el("td", "", valueText(view.vars[v][p])); c.dataset.label = label(v); tr.append(c); }
    table.append(tr);
  }
  $("players").replaceChildren(table);
  // the results
  $("over").hidden = !view.results;
  if (view.results) {
    const r = el("table", "players"), h = el("tr");
    for (const c of ["player", "place", "result"]) h.append(el("th", "", c));
    r.append(h);
    for (const p of Object.keys(view.results)) {
      const tr = el("tr");
      tr.append(el("td", "", who(p)), el("td", "", String(view.places[p] ?? "—")), el("td", "", (view.grades || {})[p] || view.results[p] || "draw"));
      r.append(tr);
    }
    $("results").replaceChildren(r);
  }
  $("rematch").hidden = !(f.over && f.seat) || Boolean(f.rematch);
  $("rematch-link").replaceChildren();
  if (f.rematch) {
    const a = el("a", "", "the rematch is ready: take your seat"); a.href = f.rematch.link; a.id = "rematch-go";
    $("rematch-link").append(a);
    if (f.rematch.host) keepHosted(f.rematch);
  }
}

// The rematch this page asked for: its host token kept with the lobby's own tables (lobby.js).
function keepHosted(r) {
  const key = `gamedsl-tables-${location.host}`;
  const tables = JSON.parse(localStorage.getItem(key) || "[]");
  if (tables.some((t) => t.table === r.table)) return;
  tables.push({table: r.table, host: r.host, spectator: r.spectator,
               seats: [{seat: frame.seat, kind: "human", link: r.link}]});
  localStorage.setItem(key, JSON.stringify(tables));
}

function tick() {
  const paused = frame && frame.window && frame.window.paused;
  const left = paused ? frame.window.left * 1000 : Math.max(0, deadline - performance.now());
  $("countdown").style.width = `${100 * left / (total * 1000)}%`;
  $("seconds").textContent = paused ? "waiting for everyone to be back" : `${(left / 1000).toFixed(1)} s left`;
}

function addLog(entries, from) {
  const log = $("log");
  if (from === 0) { log.replaceChildren(); logCount = 0; }
  for (const e of entries) {
    const d = el("div", e.said !== undefined ? "said" : (e.you ? "you" : ""));
    d.textContent = e.said !== undefined ? (e.who ? `${who(e.who)}: ` : "") + named(e.said)
      : `${who(e.who)}${e.you ? " (you)" : ""}: ${named(e.text)}`;
    log.append(d);
    logCount++;
  }
  if (entries.length) {
    for (const d of log.querySelectorAll(".last")) d.classList.remove("last");
    if (log.lastElementChild) log.lastElementChild.classList.add("last");  // the latest, highlighted
    log.scrollTop = log.scrollHeight;
  }
}

window.gamedslErrors = [];  // every error the server sent this page (read by the browser tests)
function showError(text) {
  window.gamedslErrors.push(text);
  const e = $("error");
  e.textContent = text; e.style.display = "block";
  clearTimeout(showError.t); showError.t = setTimeout(() => { e.style.display = "none"; }, 4000);
}

function send(move) {
  for (const b of document.querySelectorAll("#moves button")) b.disabled = true;
  const message = JSON.stringify({type: "move", move: move, turn: frame.turn});
  if (connected()) ws.send(message);
  else { queued = message; showNotice("not connected: your move will be sent as soon as the connection is back"); }
}

function showNotice(text) {
  const n = $("notice"); n.textContent = text; n.hidden = false;
  clearTimeout(showNotice.t); showNotice.t = setTimeout(() => { n.hidden = true; }, 6000);
}

function setConnected(up, text) {
  $("conn").textContent = text;
  $("offline").hidden = up;
  document.body.classList.toggle("disconnected", !up);
}

$("name-form").onsubmit = (ev) => {
  ev.preventDefault();
  const name = $("name").value.trim();
  if (name && connected()) ws.send(JSON.stringify({type: "name", name}));
};
$("rematch").onclick = () => { if (connected()) { ws.send(JSON.stringify({type: "rematch"})); $("rematch").disabled = true; } };

function connect() {
  ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws/${token}`);
  ws.onopen = () => {
    setConnected(true, "connected"); retry = 500;
    if (queued !== null) { ws.send(queued); queued = null; }  // the server refuses it if the game moved on
  };
  ws.onmessage = (msg) => {
    const data = JSON.parse(msg.data);
    if (data.type === "error") {
      showError(data.message);
      if (data.fatal) { fatal = true; setConnected(false, data.message); $("offline").textContent = data.message; }
      for (const b of document.querySelectorAll("#moves button")) b.disabled = false;
      return;
    }
    if (data.type === "closed") {  // the table's end: no error, and nothing to reconnect to
      fatal = true; setConnected(false, "closed");
      $("offline").textContent = data.message; $("offline").classList.add("notice");
      $("status").textContent = "closed"; return;
    }
    if (data.type === "resuming") { setConnected(false, "resuming…"); $("offline").textContent = data.message; return; }
    setConnected(true, "connected");
    if (data.notice) showNotice(data.notice);
    if (data.log_from === 0 || data.log_from === logCount) addLog(data.log, data.log_from);
    else ws.send(JSON.stringify({type: "refresh"}));  // a gap in the log: ask for all of it
    frame = data;
    draw();
    document.body.dataset.turn = data.turn;
  };
  ws.onclose = () => {
    if (fatal) return;
    setConnected(false, "reconnecting…");
    $("offline").textContent = "Connection lost: reconnecting… Your moves are kept until it is back.";
    for (const b of document.querySelectorAll("#moves button")) b.disabled = queued !== null;
    setTimeout(connect, retry); retry = Math.min(retry * 2, 5000);
  };
}
connect();

// The rules panel, from the game file: its opening comment, its moves (with what each needs),
// its options (their values at this table come with each frame, in the header).
async function loadRules() {
  const info = await (await fetch("/api/game")).json().catch(() => null);
  if (!info) return;
  colours = info.colours || {};
  if (frame) draw();
  for (const text of info.about) $("about").append(el("p", "", text));
  for (const m of info.moves) {
    const li = el("li", "", m.move + (m.anytime ? " (at any moment, out of turn)" : ""));
    if (m.when.length) li.append(el("div", "muted", "not allowed: " + m.when.join("; ")));
    $("rule-moves").append(li);
  }
  if (info.options.length) {
    const ul = el("ul");
    for (const o of info.options) ul.append(el("li", "", `${o.name}: ${o.help || ""} (default ${o.default})`));
    $("rule-options").append(el("h3", "", "Options"), ul);
  }
}
loadRules();
