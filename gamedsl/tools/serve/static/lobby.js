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

async function listTables() {
  const tables = await (await fetch("/api/tables")).json();
  const box = $("tables");
  box.replaceChildren();
  if (!tables.length) box.textContent = "none yet";
  for (const t of tables) {
    const state = t.unavailable ? `cannot be played: ${t.unavailable}` : t.stopped ? "stopped" : t.over ? "over" : `move ${t.moves}`;
    box.append(el("div", "", `${t.table}: ${(t.seats || []).join(", ")} — ${state}`));
  }
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
  if (!r.ok) { const e = $("error"); e.textContent = made.error; e.style.display = "block"; setTimeout(() => { e.style.display = "none"; }, 5000); return; }
  const ul = $("links");
  ul.replaceChildren();
  for (const s of made.seats) {
    const li = el("li", "", `${s.seat} (${s.kind}): `);
    if (s.link) { const a = el("a", "seat-link", location.origin + s.link); a.href = s.link; a.target = "_blank"; li.append(a); }
    else li.append(el("span", "muted", "a bot"));
    ul.append(li);
  }
  const li = el("li", "", "spectators: ");
  const a = el("a", "spectator-link", location.origin + made.spectator); a.href = made.spectator; a.target = "_blank";
  li.append(a); ul.append(li);
  $("made").hidden = false;
  listTables();
};
load();
