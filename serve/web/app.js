// damka explorer: draws the board of /api/v1/tables, asks /api/v1/{variant}
// for the position's values and moves, and plays moves by clicking.
"use strict";

const state = {
  variants: {},       // name -> /api/v1/tables entry
  variant: null,      // entry of the chosen variant
  fen: "",
  data: null,         // the last /api/v1/{variant} answer
  history: [],        // FENs before the moves played here
  selected: null,     // square index of the piece picked up
  last: [],           // squares of the last move played
  request: 0,         // id of the newest request (older answers are dropped)
  stats: {},          // "variant/material" -> the material's entry of /api/v1/{variant}/stats
};

const $ = (id) => document.getElementById(id);
const SVGNS = "http://www.w3.org/2000/svg";
const SQ = 56, MARGIN = 18;

function el(tag, attrs = {}, text) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

function showError(message) {
  const e = $("error");
  e.textContent = message || "";
  e.hidden = !message;
}

async function getJson(url) {
  const r = await fetch(url);
  let body;
  try { body = await r.json(); } catch (_) { body = { error: r.status + " " + r.statusText }; }
  if (!r.ok) throw new Error(body.error || r.statusText);
  return body;
}

// ------------------------------------------------------------------ FEN

// Squares named in a FEN of the variant -> {white: [[sq, king]], black: [...], side}.
// The server is the judge of validity; this only reads what it wrote back.
function parseFen(fen) {
  const v = state.variant;
  const index = {};
  v.squares.forEach((s, i) => { index[s.name] = i; });
  const parts = fen.trim().split(":");
  const out = { side: parts[0] === "B" ? "black" : "white", white: [], black: [] };
  for (const part of parts.slice(1)) {
    const colour = part[0] === "W" ? "white" : part[0] === "B" ? "black" : null;
    if (!colour) continue;
    for (let item of part.slice(1).split(",")) {
      item = item.trim();
      if (!item) continue;
      const king = item[0] === "K";
      if (king) item = item.slice(1);
      const range = item.match(/^(\d+)-(\d+)$/);
      if (range) {
        for (let n = +range[1]; n <= +range[2]; n++) if (String(n) in index) out[colour].push([index[String(n)], king]);
      } else if (item in index) {
        out[colour].push([index[item], king]);
      }
    }
  }
  return out;
}

// "c3-d4", "c3:e5:g3", "22x15" -> square indexes along the move.
function moveSquares(text) {
  const index = {};
  state.variant.squares.forEach((s, i) => { index[s.name] = i; });
  return text.split(/[-:x]/).map((t) => index[t]).filter((i) => i !== undefined);
}

// ---------------------------------------------------------------- board

function drawBoard() {
  const v = state.variant;
  const svg = el("svg", { viewBox: `0 0 ${8 * SQ + MARGIN} ${8 * SQ + MARGIN}`, role: "img" });
  const playing = new Map();  // "col,row" -> square index
  v.squares.forEach((s, i) => playing.set(s.column + "," + s.row, i));
  const pieces = state.fen ? parseFen(state.fen) : { white: [], black: [] };
  const moves = (state.data && Array.isArray(state.data.moves)) ? state.data.moves : [];
  const targets = new Set();
  if (state.selected !== null)
    for (const m of moves) {
      const path = moveSquares(m.move);
      if (path[0] === state.selected) targets.add(path[path.length - 1]);
    }
  for (let row = 7; row >= 0; row--) {
    for (let col = 0; col < 8; col++) {
      const x = MARGIN + col * SQ, y = (7 - row) * SQ;
      const sq = playing.get(col + "," + row);
      if (sq === undefined) {
        svg.appendChild(el("rect", { x, y, width: SQ, height: SQ, class: "sq-off" }));
        continue;
      }
      let cls = "sq-play";
      if (sq === state.selected) cls += " from";
      else if (targets.has(sq)) cls += " target";
      else if (state.last.includes(sq)) cls += " last";
      const r = el("rect", { x, y, width: SQ, height: SQ, class: cls, "data-square": v.squares[sq].name });
      r.addEventListener("click", () => clickSquare(sq));
      svg.appendChild(r);
      if (v.numeric_notation) svg.appendChild(el("text", { x: x + 3, y: y + 10, class: "num" }, v.squares[sq].name));
    }
  }
  if (!v.numeric_notation) {
    for (let col = 0; col < 8; col++)
      svg.appendChild(el("text", { x: MARGIN + col * SQ + SQ / 2 - 3, y: 8 * SQ + 13, class: "coord" },
                         "abcdefgh"[col]));
    for (let row = 0; row < 8; row++)
      svg.appendChild(el("text", { x: 4, y: (7 - row) * SQ + SQ / 2 + 4, class: "coord" }, String(row + 1)));
  }
  for (const colour of ["white", "black"]) {
    for (const [sq, king] of pieces[colour]) {
      const s = v.squares[sq];
      const cx = MARGIN + s.column * SQ + SQ / 2, cy = (7 - s.row) * SQ + SQ / 2;
      const g = el("g", { class: `piece ${colour}${king ? " king" : ""}`, "data-piece": s.name,
                          "data-kind": (colour === "white" ? "w" : "b")[king ? "toUpperCase" : "toString"]() });
      g.appendChild(el("circle", { cx, cy, r: SQ * 0.38, class: "body", "stroke-width": 2 }));
      g.appendChild(el("circle", { cx, cy, r: SQ * 0.26, fill: "none", stroke: colour === "white" ? "#999" : "#555" }));
      if (king) g.appendChild(el("text", { x: cx, y: cy }, "K"));
      svg.appendChild(g);
    }
  }
  $("board").replaceChildren(svg);
}

function clickSquare(sq) {
  const moves = (state.data && Array.isArray(state.data.moves)) ? state.data.moves : [];
  $("choice").hidden = true;
  if (state.selected !== null && sq !== state.selected) {
    const matching = moves.filter((m) => {
      const p = moveSquares(m.move);
      return p[0] === state.selected && p[p.length - 1] === sq;
    });
    if (matching.length === 1) return playMove(matching[0]);
    if (matching.length > 1) {  // several capture paths end there: let the player pick
      const box = $("choice");
      box.replaceChildren(document.createTextNode("Which capture? "));
      for (const m of matching) {
        const b = document.createElement("button");
        b.textContent = m.move;
        b.addEventListener("click", () => playMove(m));
        box.appendChild(b);
      }
      box.hidden = false;
      return;
    }
  }
  const from = moves.some((m) => moveSquares(m.move)[0] === sq);
  state.selected = from && sq !== state.selected ? sq : null;
  drawBoard();
}

// ------------------------------------------------------------- values

function valueText(v, distance) {
  if (!v) return "";
  if (v.status) return v.status;
  if (!distance || v.result === "draw") return v.result;
  return `${v.result} in ${v.plies} ${v.plies === 1 ? "ply" : "plies"}`;
}

function setValue(id, v, distance) {
  const td = $(id);
  td.textContent = valueText(v, distance);
  td.className = v && v.status ? "unknown" : v ? v.result : "";
}

function moveLabel(m) {
  const d = (x) => (x === null ? "" : x === "unknown" ? " unknown" : ` ${x}`);
  if (m.result === "draw") return "draw";
  return `${m.result} · dtw${d(m.dtw)} · dtc${d(m.dtc)}`;
}

function showPosition() {
  const d = state.data;
  const v = state.variant;
  $("material").textContent = d ? `${d.material}, ${d.side_to_move} to move` : "";
  $("turn").textContent = d ? `${d.side_to_move === "white" ? "White" : "Black"} to move` : "";
  setValue("wdl", d && d.wdl, false);
  setValue("dtw", d && d.dtw, true);
  setValue("dtc", d && d.dtc, true);
  const missing = $("missing");
  missing.hidden = !(d && d.missing_tables && d.missing_tables.length);
  if (!missing.hidden) missing.textContent = "Tables missing: " + d.missing_tables.join(", ") + " (values unknown)";
  const list = $("moves");
  list.replaceChildren();
  if (d && Array.isArray(d.moves)) {
    if (!d.moves.length) list.appendChild(Object.assign(document.createElement("li"),
                                           { textContent: "no legal move: the side to move has lost" }));
    for (const m of d.moves) {
      const li = document.createElement("li");
      li.className = m.result;
      const b = document.createElement("button");
      b.type = "button";
      b.dataset.move = m.move;
      const name = Object.assign(document.createElement("span"), { className: "mv", textContent: m.move });
      b.append(name, document.createTextNode(moveLabel(m)));
      b.addEventListener("click", () => playMove(m));
      li.appendChild(b);
      list.appendChild(li);
    }
  } else if (d && d.moves) {
    list.appendChild(Object.assign(document.createElement("li"), { className: "unknown", textContent: d.moves.status }));
  }
  const pv = $("pv");
  pv.replaceChildren();
  if (d && Array.isArray(d.pv)) {
    // Numbered by full moves as PDN (and `damka probe --pv`) writes them:
    // "1." before the first side's moves, "1..." when the line starts with the second side's.
    const firstSide = (v.start_fen || "W").startsWith("B") ? "black" : "white";
    let number = 1;
    d.pv.forEach((m, i) => {
      const side = (i % 2 === 0) === (d.side_to_move === "white") ? "white" : "black";
      const label = side === firstSide ? `${number}.` : i === 0 ? `${number}...` : "";
      if (side !== firstSide) number += 1;
      const li = Object.assign(document.createElement("li"),
                               { textContent: m, className: i === 0 ? "next" : "", title: "play the line up to here" });
      if (label) li.dataset.number = label;
      li.addEventListener("click", () => playLine(d.pv.slice(0, i + 1)));
      pv.appendChild(li);
    });
    if (!d.pv.length) pv.appendChild(Object.assign(document.createElement("li"),
        { textContent: d.dtw && d.dtw.result === "draw" ? "none (a draw never ends)" : "the game is over" }));
  } else if (d && d.pv) {
    pv.appendChild(Object.assign(document.createElement("li"), { className: "unknown", textContent: d.pv.status }));
  }
  $("pv-step").disabled = !(d && Array.isArray(d.pv) && d.pv.length);
  $("back").disabled = state.history.length === 0;
  const link = `/?variant=${encodeURIComponent(v.name)}&fen=${encodeURIComponent(state.fen)}`;
  $("permalink").href = link;
  drawBoard();
}

async function showStatutes() {
  const box = $("statutes");
  const book = $("rulebook").value;
  if (!book) {
    box.textContent = `No rulebook with draw statutes for ${state.variant.display_name}.`;
    return;
  }
  const id = state.request;
  const url = `/api/v1/${state.variant.name}/statutes?fen=${encodeURIComponent(state.fen)}` +
              `&rulebook=${encodeURIComponent(book)}&moves=${Math.max(0, +$("moves-played").value || 0)}`;
  // Progress while the verdict is computed (the first request for a material
  // may compute its statute values: seconds on large tables).
  const t0 = Date.now();
  const progress = Object.assign(document.createElement("p"), { id: "statute-progress", className: "computing",
                                                                textContent: "computing the verdict\u2026" });
  box.replaceChildren(progress);
  const timer = setInterval(() => {
    progress.textContent = `computing the verdict\u2026 ${Math.round((Date.now() - t0) / 1000)} s ` +
                           "(the first request for a material computes its statute values)";
  }, 500);
  try {
    const s = (await getJson(url)).statutes;
    if (id !== state.request) return;
    box.replaceChildren();
    const p = document.createElement("p");
    if (s.error) {
      p.className = "unknown";
      p.textContent = "unknown: " + s.error;
      box.appendChild(p);
      return;
    }
    p.className = s.winner ? (s.wins_in_time ? "win" : "draw") : "draw";
    p.id = "statute-summary";
    p.textContent = s.summary;
    box.appendChild(p);
    if (s.clauses.length) {
      const t = document.createElement("table");
      t.innerHTML = "<tr><th>clause</th><th>limit</th><th>played</th><th>moves needed</th><th>left</th>" +
                    "<th>in time</th></tr>";
      for (const c of s.clauses) {
        const tr = document.createElement("tr");
        for (const x of [c.clause, c.limit, c.moves_played, c.moves_needed === null ? "-" : c.moves_needed, c.moves_left,
                         c.in_time ? "yes" : "no"])
          tr.appendChild(Object.assign(document.createElement("td"), { textContent: String(x) }));
        tr.title = c.summary;
        t.appendChild(tr);
      }
      box.appendChild(t);
    }
  } catch (e) {
    if (id === state.request) box.textContent = e.message;
  } finally {
    clearInterval(timer);
  }
}

// The statistics of the material on screen (its table's positions: wins,
// draws, losses for the side to move; the longest wins with an example).
async function showStats() {
  const box = $("stats");
  const d = state.data;
  if (!d || !d.material) { box.replaceChildren(); return; }
  const key = `${state.variant.name}/${d.material}`;
  const id = state.request;
  $("stats-material").textContent = d.material;
  let s = state.stats[key];
  if (!s) {
    box.textContent = "counting…";
    try {
      const j = await getJson(`/api/v1/${state.variant.name}/stats?material=${encodeURIComponent(d.material)}`);
      s = j.materials.length ? j.materials[0] : { error: (j.errors[0] || {}).error || "not counted" };
      if (j.materials.length) { s.counts_cover = j.counts_cover; state.stats[key] = s; }
    } catch (e) {
      s = { error: e.message };
    }
  }
  if (id !== state.request) return;
  box.replaceChildren();
  if (s.error) {
    box.appendChild(Object.assign(document.createElement("p"), { className: "unknown", textContent: s.error }));
    return;
  }
  const pct = (n) => s.positions ? ` (${(100 * n / s.positions).toFixed(1)}%)` : "";
  const p = document.createElement("p");
  p.id = "stats-counts";
  p.title = "counts cover " + s.counts_cover;
  p.append(`${s.material}: ${s.positions.toLocaleString("en")} positions (${s.sides_to_move} to move): `);
  for (const [k, cls] of [["wins", "win"], ["draws", "draw"], ["losses", "loss"]])
    p.append(Object.assign(document.createElement("span"), { className: cls,
      textContent: `${k} ${s[k].toLocaleString("en")}${pct(s[k])}` }), k === "losses" ? "" : ", ");
  box.appendChild(p);
  const t = document.createElement("table");
  t.id = "stats-longest";
  for (const metric of ["dtw", "dtc"]) {
    const w = s.longest_win[metric];
    const tr = document.createElement("tr");
    tr.appendChild(Object.assign(document.createElement("th"), { textContent: `longest win ${metric.toUpperCase()}` }));
    const td = document.createElement("td");
    if (!w) td.textContent = "none";
    else {
      td.append(`${w.plies} plies (${w.positions.toLocaleString("en")} positions), e.g. `);
      const a = Object.assign(document.createElement("a"), { href: "#", textContent: w.fen, title: "show this position" });
      a.addEventListener("click", (e) => { e.preventDefault(); load(w.fen, { push: true }); });
      td.appendChild(a);
    }
    tr.appendChild(td);
    t.appendChild(tr);
  }
  box.appendChild(t);
}

// -------------------------------------------------------------- actions

async function load(fen, { push = false, last = [] } = {}) {
  const id = ++state.request;
  showError("");
  document.body.dataset.loading = "1";
  try {
    const d = await getJson(`/api/v1/${state.variant.name}?fen=${encodeURIComponent(fen)}`);
    if (id !== state.request) return;
    if (push && state.fen) state.history.push(state.fen);
    state.data = d;
    state.fen = d.fen;
    state.selected = null;
    state.last = last;
    $("fen").value = d.fen;
    history.replaceState(null, "", `/?variant=${encodeURIComponent(state.variant.name)}&fen=${encodeURIComponent(d.fen)}`);
    showPosition();
    await Promise.all([showStatutes(), showStats()]);
  } catch (e) {
    if (id === state.request) showError(e.message);
  } finally {
    if (id === state.request) document.body.dataset.loading = "";
  }
}

function playMove(m) {
  $("choice").hidden = true;
  return load(m.fen_after, { push: true, last: moveSquares(m.move) });
}

// Plays the moves of a line (texts as in the move lists) one after the other.
async function playLine(line) {
  for (const text of line) {
    const m = state.data && Array.isArray(state.data.moves) && state.data.moves.find((x) => x.move === text);
    if (!m) return;
    await playMove(m);
  }
}

function chooseVariant(name, fen) {
  state.variant = state.variants[name] || Object.values(state.variants)[0];
  $("variant").value = state.variant.name;
  const books = $("rulebook");
  books.replaceChildren();
  for (const b of state.variant.rulebooks) books.appendChild(new Option(b, b));
  state.history = [];
  state.data = null;
  state.fen = "";
  return load(fen || (state.variant.max_pieces ? state.variant.example_fen : state.variant.start_fen));
}

async function main() {
  let tables;
  try {
    tables = await getJson("/api/v1/tables");
  } catch (e) {
    showError("cannot read /api/v1/tables: " + e.message);
    return;
  }
  const select = $("variant");
  for (const v of tables.variants) {
    state.variants[v.name] = v;
    const label = v.display_name + (v.max_pieces ? ` (tables up to ${v.max_pieces} pieces)` : " (no tables)");
    select.appendChild(new Option(label, v.name));
  }
  const q = new URLSearchParams(location.search);
  const fallback = tables.variants.find((v) => v.max_pieces > 0) || tables.variants[0];
  const name = q.get("variant") && state.variants[q.get("variant")] ? q.get("variant") : fallback.name;
  select.addEventListener("change", () => chooseVariant(select.value));
  $("position-form").addEventListener("submit", (e) => { e.preventDefault(); load($("fen").value, { push: true }); });
  $("back").addEventListener("click", () => {
    if (state.history.length) {
      const fen = state.history.pop();
      load(fen);
    }
  });
  $("pv-step").addEventListener("click", () => {
    const d = state.data;
    if (!d || !Array.isArray(d.pv) || !d.pv.length || !Array.isArray(d.moves)) return;
    const m = d.moves.find((x) => x.move === d.pv[0]);
    if (m) playMove(m);
  });
  $("rulebook").addEventListener("change", showStatutes);
  $("moves-played").addEventListener("change", showStatutes);
  await chooseVariant(name, q.get("fen") || undefined);
}

main();
