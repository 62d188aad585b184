// The table page: one WebSocket; the server sends this seat's view after every change, the page
// draws it (any game: zones, cards and values as the observation gives them) and sends moves.
"use strict";
const token = location.pathname.split("/").pop();
const $ = (id) => document.getElementById(id);
let ws = null, frame = null, logCount = 0, deadline = 0, total = 0, timer = null, retry = 500, fatal = false;
let windowTurn = null;

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

// A card (or any text holding card names): red suits red; a colour word marks the chip.
function cardEl(text) {
  const e = el("span", "card", text);
  const t = String(text);
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

function zoneEl(v) {
  if (Array.isArray(v)) return cardsEl(v);
  if (v && typeof v === "object") {
    const span = el("span");
    if (v.top !== undefined && v.top !== null) { span.append("top ", cardEl(v.top), " "); }
    let count = v.backs ? Object.entries(v.backs).map(([b, k]) => `${k} ${b}`).join(", ")
                        : `${v.count} card${v.count === 1 ? "" : "s"}`;
    span.append(el("span", "count", v.top !== undefined && v.top !== null ? `(${count})` : count));
    if (v.known && v.known.length) { span.append(el("span", "count", " — you know "), cardsEl(v.known)); }
    return span;
  }
  return el("span", "", String(v));
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

function perPlayer(v, players) {
  return v && typeof v === "object" && !Array.isArray(v) && Object.keys(v).length === players.length &&
    players.every((p) => p in v);
}

function draw() {
  const f = frame, view = f.view;
  document.title = `${f.game} — ${f.seat || "spectator"}`;
  $("game").textContent = f.game;
  $("where").textContent = `round ${view.round}, move ${view.move}`;
  $("seat").textContent = f.seat ? `you are ${f.seat}` : "spectating";
  const st = $("status");
  st.className = "";
  if (f.stopped) st.textContent = "stopped: " + f.stopped;
  else if (f.over) st.textContent = "game over";
  else if (f.legal.length) { st.textContent = f.window ? "quick!" : "your move"; st.className = "mine"; }
  else if (f.answered) st.textContent = "answered: waiting for the others";
  else if (view.to_move) st.textContent = `${view.to_move} to move`;
  else st.textContent = "waiting…";

  // the moves
  const moves = $("moves");
  moves.replaceChildren();
  moves.className = f.window ? "window" : "";
  if (!f.legal.length) moves.append(el("span", "muted", f.answered ? "your answer is in" : "—"));
  for (const m of f.legal) {
    const b = el("button", "move", m.text);
    b.dataset.move = m.move;
    b.onclick = () => send(m.move);
    moves.append(b);
  }
  // the reaction window's countdown
  clearInterval(timer);
  if (f.window && f.legal.length) {
    if (f.turn !== windowTurn) {  // a new question: its clock starts from the time left it was sent
      windowTurn = f.turn; total = f.window.total; deadline = performance.now() + f.window.left * 1000;
    }
    $("countdown").hidden = false;
    $("windowtext").textContent = f.window.kind === "race" ? "Race! Everyone answers at once; the fastest counts first."
      : "React now, or let it pass: everyone asked answers at once, the fastest counts.";
    tick(); timer = setInterval(tick, 100);
  } else { $("countdown").hidden = true; $("windowtext").textContent = ""; }

  // shared zones and values
  const players = playersOf(view);
  const shared = $("shared");
  shared.replaceChildren();
  for (const [name, v] of Object.entries(view.zones || {})) {
    if (perPlayer(v, players)) continue;
    const d = el("div", "zone"); d.append(el("b", "", name + ": "), zoneEl(v)); shared.append(d);
  }
  for (const [name, v] of Object.entries(view.vars || {})) {
    if (perPlayer(v, players)) continue;
    const d = el("div", "var"); d.append(el("b", "", name + ": "), el("span", "", valueText(v))); shared.append(d);
  }
  // the players
  const pz = Object.keys(view.zones || {}).filter((z) => perPlayer(view.zones[z], players));
  const pv = Object.keys(view.vars || {}).filter((z) => perPlayer(view.vars[z], players));
  const table = el("table", "players"), head = el("tr");
  head.append(el("th", "", ""));
  for (const z of pz) head.append(el("th", "", z));
  for (const v of pv) head.append(el("th", "", v));
  table.append(head);
  const out = new Set(view.eliminated || []);
  for (const p of players) {
    const tr = el("tr", (p === f.seat ? "me " : "") + (p === view.to_move ? "tomove" : ""));
    const td = el("td", "", p);
    const seat = f.seats.find((s) => s.name === p);
    if (p === f.seat) td.append(el("span", "muted", " (you)"));
    if (out.has(p)) td.append(el("span", "offline", " (out)"));
    if (seat) td.append(el("div", seat.kind === "human" ? (seat.online ? "online" : "offline") : "muted",
                           seat.kind === "human" ? (seat.online ? "online" : "away") : seat.kind + " bot"));
    tr.append(td);
    for (const z of pz) { const c = el("td"); c.append(zoneEl(view.zones[z][p])); tr.append(c); }
    for (const v of pv) tr.append(el("td", "", valueText(view.vars[v][p])));
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
      tr.append(el("td", "", p), el("td", "", String(view.places[p] ?? "—")), el("td", "", view.results[p] || "draw"));
      r.append(tr);
    }
    $("results").replaceChildren(r);
  }
}

function tick() {
  const left = Math.max(0, deadline - performance.now());
  $("countdown").style.width = `${100 * left / (total * 1000)}%`;
  $("countdown").title = `${(left / 1000).toFixed(1)} s`;
}

function addLog(entries, from) {
  const log = $("log");
  if (from === 0) { log.replaceChildren(); logCount = 0; }
  for (const e of entries) {
    const d = el("div", e.said !== undefined ? "said" : (e.you ? "you" : ""));
    d.textContent = e.said !== undefined ? `${e.who}: ${e.said}` : `${e.who}${e.you ? " (you)" : ""}: ${e.text}`;
    log.append(d);
    logCount++;
  }
  if (entries.length) log.scrollTop = log.scrollHeight;
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
  ws.send(JSON.stringify({type: "move", move: move, turn: frame.turn}));
}

function connect() {
  ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws/${token}`);
  ws.onopen = () => { $("conn").textContent = "connected"; retry = 500; };
  ws.onmessage = (msg) => {
    const data = JSON.parse(msg.data);
    if (data.type === "error") {
      showError(data.message);
      if (data.fatal) { fatal = true; $("conn").textContent = data.message; }
      for (const b of document.querySelectorAll("#moves button")) b.disabled = false;
      return;
    }
    if (data.log_from === 0 || data.log_from === logCount) addLog(data.log, data.log_from);
    else ws.send(JSON.stringify({type: "refresh"}));  // a gap in the log: ask for all of it
    frame = data;
    draw();
    document.body.dataset.turn = data.turn;
  };
  ws.onclose = () => {
    if (fatal) return;
    $("conn").textContent = "reconnecting…";
    setTimeout(connect, retry); retry = Math.min(retry * 2, 5000);
  };
}
connect();
