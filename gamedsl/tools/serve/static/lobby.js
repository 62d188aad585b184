// The lobby: a form built from the game's own description (players, options, seat kinds).
"use strict";
const $ = (id) => document.getElementById(id);
// This run's CSRF token, put in the page by the server: sent back with every request that changes anything.
const csrf = document.querySelector('meta[name="csrf-token"]').content;
let info = null;

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

function seatsForm() {
  const n = +$("players").value, box = $("seats");
  const old = [...box.querySelectorAll("select")].map((s) => s.value);
  box.replaceChildren();
  for (let k = 0; k < n; k++) {
    const label = el("label", "", `${info.players[k]} `);
    const sel = el("select"); sel.name = `seat${k}`;
    for (const kind of info.seat_kinds) sel.append(new Option(kind, kind));
    sel.value = old[k] || (k === 0 ? "human" : "greedy");
    label.append(sel); box.append(label);
  }
}

async function load() {
  info = await (await fetch("/api/game")).json();
  $("game").textContent = info.name;
  document.title = `${info.name} — gamedsl lobby`;
  for (let n = info.min_players; n <= info.max_players; n++) $("players").append(new Option(n, n));
  $("players").onchange = seatsForm;
  seatsForm();
  for (const o of info.options) {
    const label = el("label", "", `${o.name} `);
    let input;
    if (o.kind === "choice") { input = el("select"); for (const c of o.choices) input.append(new Option(c, c)); input.value = o.default; }
    else if (o.kind === "bool") { input = el("input"); input.type = "checkbox"; input.checked = o.default === "true"; }
    else { input = el("input"); input.type = "number"; input.value = o.default; }
    input.name = `option-${o.name}`; input.dataset.option = o.name; input.dataset.kind = o.kind;
    label.append(input);
    if (o.help) label.append(el("span", "muted", " " + o.help));
    $("options").append(label);
  }
  listTables();
}

// The tables this browser created, with their links and host tokens: kept in this browser only
// (localStorage), so closing the tab loses nothing; the server keeps no link it could show again.
const MINE = `gamedsl-tables-${location.host}`;
const mine = () => JSON.parse(localStorage.getItem(MINE) || "[]");
const keep = (tables) => localStorage.setItem(MINE, JSON.stringify(tables));

function linkRow(label, path, cls) {
  const li = el("li", "", `${label}: `);
  const url = location.origin + path;
  const a = el("a", cls, url); a.href = path; a.target = "_blank"; a.rel = "noopener";
  const copy = el("button", "copy", "copy"); copy.type = "button";
  copy.onclick = async () => { copy.textContent = await copied(url, a) ? "copied" : "selected: copy it"; };
  li.append(a, " ", copy);
  return li;
}

// Copy a link: with the clipboard API where the page may use it (https, or this machine), else
// (a LAN address over http has no navigator.clipboard) through a hidden text field; if even that is
// refused, the link's text is left selected for the person to copy.
async function copied(url, link) {
  try { await navigator.clipboard.writeText(url); return true; } catch (e) { /* no clipboard API here */ }
  const field = el("textarea"); field.value = url; field.setAttribute("readonly", "");
  field.style.position = "fixed"; field.style.opacity = "0";
  document.body.append(field); field.select();
  let ok = false;
  try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
  field.remove();
  if (!ok) { const range = document.createRange(); range.selectNodeContents(link);
             getSelection().removeAllRanges(); getSelection().addRange(range); }
  return ok;
}

let justMade = null;  // the table whose links are shown above, under "The links": not shown twice

function showMade(t) {  // the links of the table just made, under "The links"
  justMade = t.table;
  const ul = linkList(t);
  ul.id = "links";
  $("links").replaceWith(ul);
  $("made").hidden = false;
}

function linkList(t) {
  const ul = el("ul", "links");
  for (const s of t.seats) {
    if (s.link) ul.append(linkRow(`${s.seat} (${s.kind})`, s.link, "seat-link"));
    else ul.append(el("li", "muted", `${s.seat}: ${s.kind}, a bot`));
  }
  ul.append(linkRow("spectators", t.spectator, "spectator-link"));
  return ul;
}

function showMine(states) {
  const box = $("mine");
  box.replaceChildren();
  const tables = mine();
  $("mine-section").hidden = !tables.length;
  for (const t of tables.slice().reverse()) {
    const sec = el("div", "mine-table");
    const state = states[t.table] || "gone from the server";
    sec.append(el("h3", "", `${t.table} — ${state}`));
    if (t.table === justMade) sec.append(el("p", "muted", "its links are above, under The links"));
    else sec.append(linkList(t));
    const buttons = el("div", "host-buttons");
    const close = el("button", "", "close the table"), del = el("button", "", "delete it");
    close.type = del.type = "button";
    close.onclick = () => host(t, "POST", `/api/tables/${t.table}/close`);
    del.onclick = async () => {
      if (!confirm(`Delete table ${t.table}, its links and its log?`)) return;
      if (await host(t, "DELETE", `/api/tables/${t.table}`)) keep(mine().filter((x) => x.table !== t.table));
      listTables();
    };
    const live = states[t.table] && !/closed|over|gone/.test(states[t.table]);
    if (live) buttons.append(close, botButtons(t));
    buttons.append(del);
    sec.append(buttons);
    box.append(sec);
  }
}

// A seat's host controls: give it to a bot (a person gone away; at once if nobody opened it yet),
// give it (back) to a person, or give it a new link (the old one opens nothing then).
function botButtons(t) {
  const span = el("span", "give-bot");
  const seat = el("select"), bot = el("select");
  const toBot = el("button", "to-bot", "give to a bot"), toPerson = el("button", "to-person", "give to a person");
  const newLink = el("button", "new-link", "new link");
  t.seats.forEach((s, k) => seat.append(new Option(s.seat, k)));
  for (const kind of info.seat_kinds) if (kind !== "human") bot.append(new Option(kind, kind));
  seat.className = "give-seat"; bot.className = "give-kind";
  toBot.type = toPerson.type = newLink.type = "button";
  const change = (k, answer, how) => {  // the kept links, as the server now has them
    keep(mine().map((x) => x.table !== t.table ? x : {...x, seats: x.seats.map((s, j) => j === k ? how(s, answer) : s)}));
    if (t.table === justMade) showMade(mine().find((x) => x.table === t.table));
    listTables();
  };
  const post = async (body, how) => {
    const k = +seat.value;
    const answer = await host(t, "POST", `/api/tables/${t.table}/seats/${k}`, body);
    if (answer) change(k, answer, how);
  };
  toBot.onclick = () => post({bot: bot.value}, (s) => ({...s, kind: bot.value, link: null, held: s.link || s.held}));
  toPerson.onclick = () => post({person: true}, (s, a) => ({...s, kind: "human", link: a.link || s.held || s.link}));
  newLink.onclick = () => post({kick: true}, (s, a) => ({...s, link: s.kind === "human" ? a.link : null, held: a.link}));
  span.append(seat, bot, toBot, toPerson, newLink);
  return span;
}

async function host(t, method, path, body) {
  const r = await fetch(path, {method, headers: {"Content-Type": "application/json", "X-CSRF-Token": csrf,
                                                 "X-Host-Token": t.host},
                               body: body === undefined ? undefined : JSON.stringify(body)});
  const answer = await r.json().catch(() => ({error: `the server answered ${r.status} ${r.statusText}`}));
  if (!r.ok) { showError(answer.error); return null; }
  listTables();
  return answer;
}

function showError(text) {
  const e = $("error"); e.textContent = text; e.style.display = "block";
  setTimeout(() => { e.style.display = "none"; }, 5000);
}

async function listTables() {
  const tables = await (await fetch("/api/tables")).json();
  const box = $("tables");
  box.replaceChildren();
  if (!tables.length) box.textContent = "none yet";
  const states = {};
  for (const t of tables) {
    const state = t.resuming ? "resuming…" : t.unavailable ? `cannot be played: ${t.unavailable}`
      : t.stopped ? `stopped: ${t.stopped}` : t.over ? "over" : `move ${t.moves}`;
    states[t.table] = state;
    box.append(el("div", "", `${t.table}: ${(t.seats || []).join(", ")} — ${state}`));
  }
  showMine(states);
}

$("new").onsubmit = async (ev) => {
  ev.preventDefault();
  const options = {};
  for (const i of document.querySelectorAll("[data-option]")) {
    options[i.dataset.option] = i.dataset.kind === "bool" ? String(i.checked) : i.dataset.kind === "number" ? +i.value : i.value;
  }
  // the seed as text: a JavaScript number keeps only 53 bits of a 128-bit seed
  const seed = $("seed").value.trim();
  const body = {players: +$("players").value, seats: [...$("seats").querySelectorAll("select")].map((s) => s.value),
                options, seed: seed === "" ? null : seed};
  const r = await fetch("/api/tables", {method: "POST", body: JSON.stringify(body),
                                        headers: {"Content-Type": "application/json", "X-CSRF-Token": csrf}});
  const made = await r.json().catch(() => ({error: `the server answered ${r.status} ${r.statusText}`}));
  if (!r.ok) { showError(made.error); return; }
  keep([...mine(), made]);
  showMade(made);
  listTables();
};
load();
