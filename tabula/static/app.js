// tabula in the browser: the page asks the server (tabula/web.py) for everything the
// rules decide and draws what it answers. Keys: t throws, 1-9 picks a listed move,
// h asks for a hint, u takes back your last move, the arrows step through the review;
// with the doubling cube, d doubles, a takes (accepts) and p passes.
"use strict";

const $ = (id) => document.getElementById(id);
let games = [];      // what GET /api/games says
let current = null;  // {id, layout, state, level, judge}

async function api(method, path, body) {
  const response = await fetch(path, {
    method, headers: {"Content-Type": "application/json"},
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await response.json();
  if (!response.ok) throw new Error(data.error || response.statusText);
  return data;
}

function option(select, value, text, selected) {
  const o = document.createElement("option");
  o.value = value; o.textContent = text; o.selected = !!selected;
  select.appendChild(o);
}

function fillSetup() {
  const game = games.find((g) => g.name === $("game").value);
  $("rules").innerHTML = "";
  game.rules.forEach((r, i) => option($("rules"), r.name, i === 0 ? `${r.name} (default)` : r.name));
  $("rules-choice").hidden = game.rules.length < 2;
  fillPieces();
  $("side").innerHTML = "";
  game.sides.forEach((s, i) => option($("side"), s, `${s}${i === 0 ? " (throws first)" : ""}`));
  $("rules-link").href = `/rules/${game.name}`;
}

function chosenRules() {
  const game = games.find((g) => g.name === $("game").value);
  return game.rules.find((r) => r.name === $("rules").value);
}

// the strengths the chosen variant can be played at here, and why the others are not
// offered: the Journeyman needs a network, the Master a network or a table (with the
// cube, a table)
function fillLevels() {
  const levels = chosenRules().playable[$("pieces").value];
  for (const input of document.querySelectorAll("input[name=level]")) {
    input.parentElement.hidden = !levels.includes(input.value);
    if (input.checked && input.parentElement.hidden) input.checked = false;
  }
  if (!document.querySelector("input[name=level]:checked")) {
    document.querySelector(`input[name=level][value=${levels[0]}]`).checked = true;
  }
  const pieces = $("pieces").value;
  $("levels-note").textContent =
    !levels.includes("journeyman") ? (levels.includes("master") ?
      `Journeyman needs a network, and none here plays ${pieces} a side.` :
      `Journeyman and Master need a network (or, for the Master, a solved table), and none ` +
      `here plays ${pieces} a side: choose a marked number of pieces to play them.`) :
    !levels.includes("master") ?
      "Master plays a game with the doubling cube from a solved table only." : "";
}

function fillPieces() {
  const rules = chosenRules();
  // a game whose sides set up first: yours as typed (drawn at random when left empty)
  $("arrange").hidden = $("arrange-help").hidden = !rules.setup;
  $("arrange-help").textContent = rules.setup ?
    `Your set-up: ${rules.setup}; leave it empty to have it drawn at random.` : "";
  $("pieces").innerHTML = "";
  for (const p of Object.keys(rules.playable).map(Number)) {   // those the rule set takes
    const notes = [];
    if (rules.shipped_pieces.includes(p)) notes.push("network");
    if (rules.table_pieces === p) notes.push("table");
    option($("pieces"), p, notes.length ? `${p} (${notes.join(", ")})` : `${p}`,
           p === rules.default_pieces);
  }
  fillLevels();
}

async function start(event) {
  event.preventDefault();
  $("setup-error").textContent = "";
  const hotseat = document.querySelector("input[name=mode]:checked").value === "hotseat";
  try {
    const request = {
      game: $("game").value, rules: $("rules").value, pieces: Number($("pieces").value), hotseat,
      level: document.querySelector("input[name=level]:checked").value, side: $("side").value,
    };
    if (!$("arrange").hidden && $("arrangement").value.trim()) {
      request.setup = $("arrangement").value.trim();
    }
    const seed = new URLSearchParams(location.search).get("seed");   // ?seed=N: the same throws
    if (seed !== null) request.seed = Number(seed);
    const data = await api("POST", "/api/games", request);
    enter(data, hotseat ? "two people at one screen" :
      `you play ${$("side").value} against the computer (${data.level})`);
  } catch (err) {
    $("setup-error").textContent = err.message;
  }
}

// the game's id in the address (?game=ID), so that a reload resumes it
function remember(id) {
  const params = new URLSearchParams(location.search);
  if (id === null) params.delete("game"); else params.set("game", id);
  const query = params.toString();
  history.replaceState(null, "", location.pathname + (query ? `?${query}` : ""));
}

// show a game, new or resumed: `who` says who plays whom, for the log's first line
function enter(data, who) {
  current = data;
  remember(data.id);
  $("setup").hidden = true; $("review").hidden = true; $("play").hidden = false;
  $("log").innerHTML = ""; $("hint-box").hidden = true;
  for (const seat of Object.keys(lastMoves)) delete lastMoves[seat];
  replay = null; $("replay").hidden = true;
  lastThrow = null;
  $("rules-link-2").href = `/rules/${data.state.game}`;
  const played = games.find((g) => g.name === data.state.game);   // checkers, cubes, pieces
  const counted = played.parameters.find((p) => p.name === "pieces");
  const word = counted.flags[0] || "pieces";   // "pieces a side", or as the game counts them
  const per = counted.help === "pieces a side" ? `${word} a side` : counted.help.replace(/^pieces/, word);
  addLog(`${data.state.game} (${data.state.rules} rules) with ${data.state.pieces} ${per}: ${who}.`);
  show(data);
}

// a reload of a game's address: the game as it stands, or why it cannot be
async function resume(id) {
  try {
    const data = await api("GET", `/api/games/${encodeURIComponent(id)}`);
    const humans = data.state.humans;
    enter(data, humans.length === 2 ? "two people at one screen, resumed" :
      `you play ${data.state.sides[humans[0]]} against the computer (${data.level}), resumed`);
  } catch (err) {
    remember(null);
    $("setup-error").textContent = `That game cannot be resumed (${err.message}): start a new one.`;
  }
}

function addLog(text) {
  const li = document.createElement("li");
  li.textContent = text;
  $("log").appendChild(li);
  li.scrollIntoView({block: "nearest"});
}

// a piece of a seat; label: the number on it (EinStein's cubes), if any
function piece(seat, label) {
  const d = document.createElement("div");
  d.className = `piece seat${seat}`;
  if (label !== undefined) d.textContent = label;
  return d;
}

const STACKED = 5;   // checkers drawn on a backgammon point

function drawBoard(view) {
  const {layout} = current;
  const state = {...current.state, board: view || current.state.board};
  const board = $("board");
  board.innerHTML = "";
  for (const seat of [0, 1]) {   // the sides' own colours where a game has them (EinStein)
    const colour = (layout.colours || [])[seat];
    if (colour) document.body.style.setProperty(`--seat${seat}`, colour);
    else document.body.style.removeProperty(`--seat${seat}`);
  }
  document.body.classList.toggle("coloured", !!layout.colours);
  board.classList.toggle("backgammon", layout.board === "backgammon");
  board.style.setProperty("--cols", layout.cols);
  board.style.gridTemplateColumns = `repeat(${layout.cols}, var(--cell))`;
  for (const c of layout.cells) {
    const div = document.createElement("div");
    div.className = `cell ${c.mark}`;
    div.id = `cell-${c.id}`;
    div.style.gridRow = c.row + 1; div.style.gridColumn = c.col + 1;
    div.setAttribute("role", "gridcell");
    if (c.title) div.title = c.title;
    div.innerHTML = `<span class="label">${c.label}</span>`;
    // a cell that shows a pool (the bear-off's tray): the seat's pieces there, counted
    const [pool, owner] = c.pool || [];
    const pooled = pool ? state.board[pool === "wait" ? "waiting" : "off"][owner] : 0;
    const seat = pool ? (pooled ? owner : undefined) : state.board.cells[c.id];
    const label = pool ? pooled : {...state.board.labels, ...state.board.stacks}[c.id];
    if (seat !== undefined) {
      // a backgammon point shows its checkers one above the other (up to STACKED, the
      // last one numbered when there are more); other games one piece, numbered
      const stacked = layout.board === "backgammon" && !pool ? Math.min(label, STACKED) : 0;
      for (let k = 1; k < stacked; k++) div.appendChild(piece(seat));
      div.appendChild(piece(seat, stacked && label <= STACKED ? undefined : label));
      const what = label === undefined ? state.sides[seat] : `${state.sides[seat]} ${label}`;
      div.setAttribute("aria-label", `square ${c.label}: ${what}`);
    } else {
      div.setAttribute("aria-label", `square ${c.label}`);
    }
    board.appendChild(div);
  }
  // seat 1 above the board, seat 0 below (Ur: dark's row on top, light's below)
  for (const [seat, box] of [[1, $("pools-top")], [0, $("pools-bottom")]]) {
    box.innerHTML = "";
    for (const pool of layout.pools) {
      const count = pool === "wait" ? state.board.waiting[seat] : state.board.off[seat];
      const div = document.createElement("div");
      div.className = "pool"; div.id = `cell-${pool}${seat}`;
      div.setAttribute("aria-label", `${state.sides[seat]} ${pool === "wait" ? "waiting" : "borne off"}: ${count}`);
      div.append(`${state.sides[seat]} ${pool === "wait" ? "waiting" : "off"} ${count} `);
      for (let i = 0; i < count; i++) div.appendChild(piece(seat));
      box.appendChild(div);
    }
    if (state.board.pips) {
      const pips = document.createElement("span");
      pips.className = "pips"; pips.id = `pips${seat}`;
      pips.textContent = `${state.board.pips[seat]} pips`;
      box.appendChild(pips);
    }
    if (state.cube && state.cube.owner === seat) box.appendChild(cubeDiv(state));
  }
  $("cube-centre").innerHTML = "";
  if (state.cube && state.cube.owner === null) $("cube-centre").appendChild(cubeDiv(state));
  drawPaths();
  $("legend").textContent = layout.legend || "";
}

// Each side's path as a faint line through the centres of its cells, in order, with
// an arrow at the end (the two are set a little apart where they share tiles).
function drawPaths() {
  const {layout} = current;
  const svg = $("paths");
  svg.innerHTML = "";
  if (!layout.paths) return;
  const box = $("board-box").getBoundingClientRect();
  svg.setAttribute("width", box.width); svg.setAttribute("height", box.height);
  const ns = "http://www.w3.org/2000/svg";
  layout.paths.forEach((cells, seat) => {
    const shift = seat === 0 ? 5 : -5;
    const points = cells.map((id) => {
      const r = $(`cell-${id}`).getBoundingClientRect();
      return `${r.left - box.left + r.width / 2 + shift},${r.top - box.top + r.height / 2 + shift}`;
    });
    const marker = document.createElementNS(ns, "marker");
    marker.id = `arrow${seat}`;
    for (const [k, v] of Object.entries({viewBox: "0 0 10 10", refX: 5, refY: 5, markerWidth: 5,
                                         markerHeight: 5, orient: "auto-start-reverse"})) {
      marker.setAttribute(k, v);
    }
    const head = document.createElementNS(ns, "path");
    head.setAttribute("d", "M 0 0 L 10 5 L 0 10 z");
    head.setAttribute("class", `path-line seat${seat}-path`);
    marker.appendChild(head);
    svg.appendChild(marker);
    const line = document.createElementNS(ns, "polyline");
    line.setAttribute("points", points.join(" "));
    line.setAttribute("class", `path-line seat${seat}-path`);
    line.setAttribute("marker-end", `url(#arrow${seat})`);
    svg.appendChild(line);
  });
}

// The doubling cube, by its owner's pools (centred: beside the controls).
function cubeDiv(state) {
  const div = document.createElement("div");
  div.className = "cube"; div.id = "cube";
  const {value, owner, offered} = state.cube;
  div.textContent = offered ? `${2 * value}?` : `${value}`;
  div.title = offered ? `doubled to ${2 * value}, waiting for the answer` :
    owner === null ? `the cube at ${value}, centred: either side may double` :
    `the cube at ${value}, owned by ${state.sides[owner]}: only they may double`;
  div.setAttribute("aria-label", div.title);
  return div;
}

let lastThrow = null;   // the last throw of either side, shown until the next one
function drawDice(events) {
  const thrown = (events || []).filter((e) => e.kind === "throw");
  if (thrown.length) lastThrow = thrown[thrown.length - 1];
  const {state} = current;
  showThrow(state.throw !== null ? state.throw : lastThrow && lastThrow.throw);
}

// a throw as people read it: a roll of two dice '6-2', else its number
function throwText(value) {
  return current.layout.dice.faces ? String(value).split("").join("-") : String(value);
}

function showThrow(value) {
  const {layout} = current;
  if (value === null || value === undefined || !layout.dice.count) {   // none, or no dice
    $("dice").textContent = "\u00A0";
    return;
  }
  if (layout.dice.faces) {   // real dice: each die's face (a throw of two is high * 10 + low)
    const faces = String(value).split("").map((d) => String.fromCodePoint(0x2680 + Number(d) - 1));
    $("dice").textContent = `${faces.join(" ")} ${throwText(value)}`;
    $("dice").title = `${layout.dice.name}: ${String(value).split("").join(" and ")}`;
    return;
  }
  const marked = layout.dice.marked[String(value)];
  // sticks: light side up or dark; dice (Ur's tetrahedra): a marked tip up or not
  const [up, down] = layout.dice.name === "sticks" ? ["\u25AF", "\u25AE"] : ["\u25B2", "\u25B3"];
  const marks = up.repeat(marked) + down.repeat(layout.dice.count - marked);
  $("dice").textContent = `${marks} ${value}`;
  $("dice").title = `${layout.dice.name}: ${marked} of ${layout.dice.count} marked`;
}

// Each legal move is a button; on the board, a ringed piece makes its move, or, where
// it has several (an EinStein cube's three steps), is picked first and then one of the
// squares it can reach, ringed in turn. A game whose layout says its moves are
// "listed" (a bear-off's play of a whole roll) is played from the buttons alone.
function drawMoves() {
  const {state} = current;
  const list = $("moves");
  list.innerHTML = "";
  const byPiece = {};
  const tapping = state.moves.length > 0 && state.moves[0].orders !== undefined;
  state.moves.filter((m) => !tapping || m.orders.some((o) => untapped(o))).forEach((m) => {
    const li = document.createElement("li");
    const button = document.createElement("button");
    button.textContent = m.text;
    button.className = "move-choice";
    button.dataset.move = m.index;
    button.addEventListener("click", () => move(m.index));
    li.appendChild(button);
    list.appendChild(li);
    (byPiece[m.from_cell] = byPiece[m.from_cell] || []).push(m);
  });
  if (tapping) { drawTaps(); return; }
  for (const [cell, moves] of Object.entries(current.layout.moves === "listed" ? {} : byPiece)) {
    const from = document.getElementById(`cell-${cell}`);
    if (!from) continue;
    const ring = from.querySelector(`.piece.seat${state.seat}`) || from;
    const go = (e) => {
      if (e) e.stopPropagation();   // not also the click of a choice square under it
      if (moves.length === 1) move(moves[0].index); else pick(cell);
    };
    ring.classList.add("movable");
    ring.tabIndex = 0;
    ring.dataset.move = moves[0].index;
    ring.setAttribute("aria-label", moves.map((m) => m.text).join(" or "));
    ring.addEventListener("click", go);
    ring.addEventListener("keydown", (e) => { if (e.key === "Enter") go(); });
    ring.addEventListener("mouseenter", () => moves.forEach((m) => mark(m.to_cell, true)));
    ring.addEventListener("mouseleave", () => moves.forEach((m) => mark(m.to_cell, false)));
  }
}

// A piece with several moves, picked: the board is drawn again (no other choice left
// listening), the piece marked, the squares it can reach ringed as the choices.
function pick(cell) {
  drawBoard(); markLastMoves(); drawMoves();
  const ring = document.getElementById(`cell-${cell}`).querySelector(".movable");
  if (ring) ring.classList.add("picked");
  for (const m of current.state.moves.filter((m) => m.from_cell === cell)) {
    const to = document.getElementById(`cell-${m.to_cell}`);
    if (!to) continue;
    to.classList.add("choice");
    to.tabIndex = 0;
    to.setAttribute("aria-label", m.text);
    // in the capture phase: before a ringed piece of the mover's standing there
    to.addEventListener("click", (e) => { e.stopPropagation(); move(m.index); }, true);
    to.addEventListener("keydown", (e) => { if (e.key === "Enter") move(m.index); });
  }
}

// Backgammon's plays are also tapped checker by checker: a tap moves a checker one
// die's step that some play allows (its steps taken in any order, or as the other
// order of the dice plays it; a checker on the bar first), where there are two the
// points it can reach are ringed to choose from, and the steps tapped that make a
// whole play send it. The board shows the steps tapped so far; Undo takes them back.
let tapped = [];   // the steps tapped this turn: {from_cell, to_cell}
const sameStep = (a, b) => a.from_cell === b.from_cell && a.to_cell === b.to_cell;

// an order's steps not tapped yet, or null where a tapped step is not in it
function untapped(order) {
  const left = [...order];
  for (const t of tapped) {
    const k = left.findIndex((s) => sameStep(s, t));
    if (k < 0) return null;
    left.splice(k, 1);
  }
  return left;
}

// the board after the steps tapped: a checker that lands on a lone opponent hits it
function tappedBoard() {
  const seat = current.state.seat, b = current.state.board;
  const board = {...b, cells: {...b.cells}, stacks: {...b.stacks}, off: [...b.off]};
  const add = (cell, who) => {
    board.cells[cell] = who; board.stacks[cell] = (board.stacks[cell] || 0) + 1;
  };
  for (const {from_cell: from, to_cell: to} of tapped) {
    if (--board.stacks[from] === 0) { delete board.stacks[from]; delete board.cells[from]; }
    if (to === `off${seat}`) { board.off[seat] += 1; continue; }
    if (board.cells[to] === 1 - seat) { delete board.stacks[to]; add(`bar${1 - seat}`, 1 - seat); }
    add(to, seat);
  }
  return board;
}

// each cell the mover can tap now, with the cells its checker can reach
function openSteps(board) {
  const seat = current.state.seat, bar = `bar${seat}`;
  const open = {};
  for (const m of current.state.moves) {
    for (const order of m.orders) {
      for (const s of untapped(order) || []) {
        if (board.cells[s.from_cell] !== seat || (board.stacks[bar] && s.from_cell !== bar)) continue;
        const to = open[s.from_cell] = open[s.from_cell] || [];
        if (!to.includes(s.to_cell)) to.push(s.to_cell);
      }
    }
  }
  return open;
}

function cellName(cell) {
  const c = current.layout.cells.find((x) => x.id === cell);
  return c ? c.label : cell;
}

// the board drawn is the board after the taps (tap, pickStep and undo draw it)
function drawTaps(picked) {
  const seat = current.state.seat;
  const board = tappedBoard();
  undoButton();
  for (const [from, tos] of Object.entries(openSteps(board))) {
    const div = $(`cell-${from}`);
    if (!div) continue;
    const ring = [...div.querySelectorAll(`.piece.seat${seat}`)].pop() || div;
    const go = (e) => {
      if (e) e.stopPropagation();
      if (tos.length === 1) tap(from, tos[0]); else pickStep(from, tos);
    };
    ring.classList.add("movable");
    if (from === picked) ring.classList.add("picked");
    ring.tabIndex = 0;
    ring.dataset.from = from;
    ring.setAttribute("aria-label", `checker on ${cellName(from)}: to ` +
                      tos.map(cellName).join(" or "));
    ring.addEventListener("click", go);
    ring.addEventListener("keydown", (e) => { if (e.key === "Enter") go(); });
  }
}

// a checker with two steps open: the points it can reach ringed as the choices
function pickStep(from, tos) {
  drawBoard(tappedBoard()); markLastMoves();
  drawTaps(from);
  for (const to of tos) {
    const div = $(`cell-${to}`);
    if (!div) continue;
    div.classList.add("choice");
    div.tabIndex = 0;
    div.setAttribute("aria-label", `${cellName(from)} to ${cellName(to)}`);
    div.addEventListener("click", (e) => { e.stopPropagation(); tap(from, to); }, true);
    div.addEventListener("keydown", (e) => { if (e.key === "Enter") tap(from, to); });
  }
}

function tap(from, to) {
  tapped.push({from_cell: from, to_cell: to});
  const whole = current.state.moves.find((m) => m.orders.some((o) => {
    const left = untapped(o);
    return left !== null && left.length === 0;
  }));
  if (whole) { tapped = []; move(whole.index); return; }
  drawBoard(tappedBoard()); markLastMoves(); drawMoves();
}

function mark(cell, on) {
  const to = document.getElementById(`cell-${cell}`);
  if (to) to.classList.toggle("target", on);
}

// Setting up a position, in a game whose layout lists what a tap puts on a square
// (checkers): each tap puts the next kind there, then none; "Play from here" starts a
// game with the same settings from it.
let editing = null;   // {cells: {cell: seat}, labels: {cell: label}} while one is set up

function editPosition() {
  const s = current.state;
  editing = {cells: {...s.board.cells}, labels: {...(s.board.labels || {})}};
  $("edit-turn").innerHTML = "";
  s.sides.forEach((side, seat) => option($("edit-turn"), String(seat), side));
  $("edit-turn").value = String(s.seat);
  $("edit-bar").hidden = false; $("moves").hidden = true; $("edit-error").textContent = "";
  drawEditing();
}

function drawEditing() {
  drawBoard({cells: editing.cells, labels: editing.labels, waiting: [0, 0], off: [0, 0]});
  for (const c of current.layout.cells) {
    $(`cell-${c.id}`).addEventListener("click", () => tapSquare(c.id));
  }
}

function tapSquare(cell) {
  const kinds = current.layout.setup;
  const now = editing.cells[cell] === undefined ? -1 : kinds.findIndex(
    (k) => k.seat === editing.cells[cell] && k.label === (editing.labels[cell] || ""));
  delete editing.cells[cell]; delete editing.labels[cell];
  const next = kinds[now + 1];
  if (next) {
    editing.cells[cell] = next.seat;
    if (next.label) editing.labels[cell] = next.label;
  }
  drawEditing();
}

function stopEditing() {
  editing = null;
  $("edit-bar").hidden = true; $("moves").hidden = false;
  drawBoard(); drawMoves();
}

async function playFromHere() {
  const s = current.state;
  const hotseat = s.humans.length === 2;
  try {
    const data = await api("POST", "/api/games", {
      game: s.game, rules: s.rules, pieces: s.pieces, hotseat, level: current.level || "journeyman",
      side: s.sides[s.humans[0]],
      board: {cells: editing.cells, labels: editing.labels, seat: Number($("edit-turn").value)},
    });
    editing = null;
    $("edit-bar").hidden = true; $("moves").hidden = false;
    enter(data, hotseat ? "two people at one screen, from a position set up" :
      `you play ${s.sides[s.humans[0]]} against the computer (${data.level}), from a position set up`);
  } catch (err) {
    $("edit-error").textContent = err.message;
  }
}

function show(data) {
  current = {...current, ...data};
  tapped = [];
  $("edit").hidden = !current.layout.setup;
  // a throw by its number, as the review names it
  for (const e of data.events || []) addLog(e.number ? `${e.number}. ${e.text}` : e.text);
  drawBoard(); drawDice(data.events); drawMoves();
  const s = current.state;
  const human = s.humans.includes(s.seat);
  $("throw").disabled = !(s.phase === "throw" && human);
  $("throw").hidden = !current.layout.dice.count;   // a game without dice throws nothing
  const answering = s.phase === "take" && s.humans.includes(1 - s.seat);
  // a hint for a move, and with the cube for a double or its answer
  const cubeDecision = s.cube && (answering || (s.phase === "throw" && s.cube.can_double && human));
  $("hint").disabled = !(current.judge && (s.phase === "move" || cubeDecision));
  undoButton();
  $("cube-controls").hidden = !s.cube;
  $("double").disabled = !(s.cube && s.cube.can_double && human);
  $("take").disabled = $("pass").disabled = !answering;
  const won = s.points ? `${s.points} point${s.points === 1 ? "" : "s"}` : "the game";
  const choose = s.moves.length && s.moves[0].orders ? "tap a ringed checker, or choose a move below" :
    current.layout.moves === "listed" ? "choose a move below" : "choose a ringed piece";
  if (s.phase === "over") {
    $("status").textContent = s.winner === null ? "A draw." :   // by the game's draw rule
      !hotseat() ? (s.humans.includes(s.winner) ?
        `You win ${won} (${s.sides[s.winner]}).` : `The computer wins ${won} (${s.sides[s.winner]}).`) :
        `${s.sides[s.winner]} wins ${won}.`;
    if (data.review) showReview(data.review, data.replay);
    else if (!current.judge) addLog("No review: neither a table nor a network plays this variant.");
  } else if (s.phase === "take") {
    const doubler = hotseat() ? s.side : "The computer";
    $("status").textContent = `${doubler} doubles to ${2 * s.cube.value}: ` +
      `${hotseat() ? s.sides[1 - s.seat] + ", " : ""}take or pass.`;
  } else if (s.phase === "throw") {
    const or = s.cube && s.cube.can_double ? "double or throw" : "throw";
    $("status").textContent = hotseat() ? `${s.side} to ${or}.` : `Your turn (${s.side}): ${or}.`;
  } else if (!current.layout.dice.count) {   // no dice: the moves are there at once
    $("status").textContent = hotseat() ? `${s.side} to move: ${choose}.` :
      `Your move (${s.side}): ${choose}.`;
  } else {
    $("status").textContent = hotseat() ? `${s.side} threw ${throwText(s.throw)}: ${choose}.` :
      `You threw ${throwText(s.throw)}: ${choose}.`;
  }
  animate(data.events || []);
}

const hotseat = () => current.state.humans.length === 2;

// Undo takes back the checkers tapped this turn, else (against the computer) the last move
function undoButton() {
  $("undo").disabled = !(tapped.length || current.state.can_undo);
  $("undo").hidden = hotseat() && !tapped.length;
}

// The last move of each side stays marked. The computer's moves of this answer slide
// one after the other, and a piece a move sends away (a capture, a swap) slides after
// it, each piece hidden on its square until its ghost lands there.
const lastMoves = {};
function markLastMoves() {
  for (const [seat, m] of Object.entries(lastMoves)) {
    for (const [cell, kind] of [[m.from_cell, "from"], [m.to_cell, "to"]]) {
      const div = document.getElementById(`cell-${cell}`);
      if (div) div.classList.add(`last-${kind}`, `last-seat${seat}`);
    }
  }
}

const SLIDE_MS = 350;
function animate(events) {
  const moves = events.filter((e) => e.kind === "move" && e.move);
  for (const e of moves) lastMoves[e.seat] = e.move;
  markLastMoves();
  const slides = [];   // [seat, from cell, to cell]
  for (const e of moves) {
    if (!current.state.humans.includes(e.seat)) {   // each checker of a bear-off's move
      for (const s of e.move.steps || [e.move]) slides.push([e.seat, s.from_cell, s.to_cell]);
    }
    const sent = e.move.sent;
    if (sent) slides.push([1 - e.seat, sent.from_cell, sent.to_cell]);
  }
  slides.forEach(([seat, fromCell, toCell], n) => slide(seat, fromCell, toCell, n,
    n === slides.length - 1 || !slides.slice(n + 1).some((later) => later[2] === toCell)));
}

// One piece of `seat` sliding from one cell (or pool) to another, as step n; `hide`:
// the piece standing there now is hidden until the ghost lands.
function slide(seat, fromCell, toCell, n, hide) {
  const from = document.getElementById(`cell-${fromCell}`);
  const to = document.getElementById(`cell-${toCell}`);
  if (!from || !to) return;
  const box = $("board-box").getBoundingClientRect();
  const landed = hide ? to.querySelector(`.piece.seat${seat}`) : null;
  if (landed) landed.style.visibility = "hidden";
  const ghost = piece(seat);
  ghost.classList.add("ghost");
  const a = from.getBoundingClientRect(), b = to.getBoundingClientRect();
  ghost.style.left = `${a.left - box.left + (a.width - 28) / 2}px`;
  ghost.style.top = `${a.top - box.top + (a.height - 28) / 2}px`;
  ghost.style.opacity = "0";
  $("board-box").appendChild(ghost);
  setTimeout(() => {
    ghost.style.opacity = "1";
    ghost.style.left = `${b.left - box.left + (b.width - 28) / 2}px`;
    ghost.style.top = `${b.top - box.top + (b.height - 28) / 2}px`;
  }, n * SLIDE_MS + 20);
  setTimeout(() => {
    ghost.remove();
    if (landed) landed.style.visibility = "";
  }, (n + 1) * SLIDE_MS + 20);
}

// One of the game's requests at a time: while one is answered the page says it is busy,
// and a second tap (a double tap on Throw) is ignored rather than sent.
let busy = false;
async function act(method, path, body) {
  if (busy) return;
  busy = true;
  $("play").setAttribute("aria-busy", "true");
  try {
    $("hint-box").hidden = true;
    show(await api(method, path, body));
  } catch (err) {
    addLog(`error: ${err.message}`);
  } finally {
    busy = false;
    $("play").removeAttribute("aria-busy");
  }
}

const throwDice = () => act("POST", `/api/games/${current.id}/throw`);
function undo() {
  if (tapped.length) {   // the checkers tapped this turn go back; the move is not sent yet
    tapped = [];
    drawBoard(); markLastMoves(); drawMoves();
    return;
  }
  for (const seat of Object.keys(lastMoves)) delete lastMoves[seat];
  act("POST", `/api/games/${current.id}/undo`);
}
const move = (index) => act("POST", `/api/games/${current.id}/move`, {move: index});
const cube = (action) => act("POST", `/api/games/${current.id}/cube`, {action});

async function hint() {
  try {
    const h = await api("GET", `/api/games/${current.id}/hint`);
    // with the cube: equities (per unit of cube); from a win/loss/draw table: results
    // and the plies to the end; else winning chances
    const outcomes = h.moves.length && h.moves[0].said !== undefined;
    const rows = h.moves.map((m, n) => `<tr><td>${n + 1}</td><td>${m.text}</td>` + (h.unit ?
      `<td>${m.equity >= 0 ? "+" : ""}${m.equity.toFixed(3)}</td><td>${m.loss.toFixed(3)}</td>` :
      outcomes ? `<td>${m.said}</td>` :
      `<td>${(100 * m.chance).toFixed(2)}%</td><td>${m.loss_points.toFixed(2)}</td>`) +
      "</tr>").join("");
    const head = h.unit ? "<th>equity</th><th>less than the best</th>" :
      outcomes ? "<th>with best play</th>" : "<th>you win</th><th>points lost</th>";
    $("hint-box").innerHTML = `<p>From best to worst (${h.source}${h.unit ? `; ${h.unit}` : ""}):` +
      `</p><table><tr><th></th><th>choice</th>${head}</tr>${rows}</table>`;
    $("hint-box").hidden = false;
  } catch (err) {
    addLog(`error: ${err.message}`);
  }
}

// The winning chance of one side at every throw, with axes, a dashed even line and a
// marker at each of its mistakes and blunders; a marker steps the review to its throw.
function chart(review, frames) {
  const chances = review.chances;
  if (!chances.length) return "";
  const w = 480, h = 172, left = 34, bottom = 34, top = 6;
  const x = (i) => left + (chances.length === 1 ? 0 : i * (w - left - 6) / (chances.length - 1));
  const y = (v) => top + (1 - v) * (h - top - bottom);
  const points = chances.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
  const ticks = [0, 0.5, 1].map((v) => `<text x="${left - 4}" y="${y(v) + 4}" text-anchor="end">` +
    `${100 * v}%</text><line x1="${left}" x2="${w - 6}" y1="${y(v)}" y2="${y(v)}" ` +
    `class="${v === 0.5 ? "even" : "grid"}"/>`).join("");
  const last = frames.length ? frames[frames.length - 1].number : 0;
  // the first, middle and last throws, each once (none in a game without a throw)
  const xTicks = [...new Set([1, Math.round(last / 2), last])].filter((n) => n >= 1 && n <= last)
    .map((n) => `<text x="${x(n - 1)}" y="${h - 20}" text-anchor="middle">${n}</text>`).join("");
  const marks = review.judged.filter((d) => d.label === "mistake" || d.label === "blunder")
    .map((d) => `<circle class="marker ${d.label}" data-turn="${d.turn}" cx="${x(d.turn - 1)}" ` +
      `cy="${y(chances[Math.min(d.turn, chances.length) - 1])}" r="5"><title>throw ${d.turn}: ` +
      `${d.label}, ${d.loss_points.toFixed(review.digits)}</title></circle>`).join("");
  return `<svg class="chart" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}" role="img" ` +
    `aria-label="${review.side}'s winning chance at every throw">${ticks}${xTicks}` +
    `<text x="${(left + w - 6) / 2}" y="${h - 4}" text-anchor="middle">throw</text>` +
    `<polyline fill="none" stroke="#b5523b" stroke-width="2" points="${points}"/>${marks}</svg>`;
}

let replay = null;   // {frames, step, judged: seat -> {turn -> decision}}

function showReview(reviews, frames) {
  $("review-body").innerHTML = `<p class="note">Each decision of yours is labelled by what ` +
    `it gave away, in ${reviews[0].unit}: best (nothing), ${reviews[0].thresholds_text}.</p>` +
    reviews.map((r) => {
    const who = hotseat() ? r.side : `You (${r.side})`;
    const digits = r.digits;
    const worst = r.worst.map((w) =>
      `<tr><td><button class="to-throw" data-turn="${w.turn}">throw ${w.turn}</button></td>` +
      `<td>${w.throw === null ? "the cube" : w.throw}</td><td>${w.played}</td>` +
      `<td>${w.better}</td><td>${w.label}</td><td>${w.loss_points.toFixed(digits)}</td></tr>`).join("");
    const parts = r.parts ? Object.entries(r.parts).map(([kind, p]) =>
      `${kind === "cube" ? "cube decisions" : "checker play"}: ${p.decisions}, ${p.wrong} ` +
      `not the best, ${p.points.toFixed(digits)} given away`).join("; ") + ". " : "";
    if (!r.decisions) return `<h3>${who}</h3><p>No decision had a choice.</p>`;
    return `<h3>${who}</h3><p><strong>${(100 * r.accuracy).toFixed(0)}%</strong> of ` +
      `${r.decisions} decision${r.decisions === 1 ? "" : "s"} with a choice played best; on average ` +
      `${r.mean_loss_points.toFixed(digits)} ${r.unit} given away a decision ` +
      `(${r.points_given_away.toFixed(digits)} in all; the throws decide the rest). ${parts}` +
      `Figures ${r.source}.</p>` +
      (worst ? `<table><tr><th></th><th>throw</th><th>played</th><th>better</th><th></th>` +
        `<th>lost</th></tr>${worst}</table>` : "<p>No mistakes.</p>") +
      `<p>Winning chance at every throw (dashed: even; dots: mistakes and blunders):</p>` +
      chart(r, frames);
  }).join("");
  const judged = {};
  for (const r of reviews) judged[r.seat] = Object.fromEntries(r.judged.map((d) => [d.turn, d]));
  replay = {frames, step: frames.length, judged};
  for (const b of document.querySelectorAll("#review [data-turn]")) {
    b.addEventListener("click", () => stepTo(Number(b.dataset.turn) - 1));
  }
  $("replay").hidden = !frames.length;
  stepTo(frames.length);
  $("review").hidden = false;
}

// Step n of the replay: the board before throw n + 1's move; n = frames.length: the end.
function stepTo(n) {
  const {frames, judged} = replay;
  replay.step = Math.max(0, Math.min(frames.length, n));
  $("moves").innerHTML = "";
  if (replay.step === frames.length) {
    drawBoard(); drawDice();
    $("replay-text").textContent = `The end: ${$("status").textContent}`;
    return;
  }
  const f = frames[replay.step];
  drawBoard(f.board); showThrow(f.throw);
  const d = (judged[f.seat] || {})[f.number];
  const who = hotseat() ? f.side : current.state.humans.includes(f.seat) ?
    `you (${f.side})` : `the computer (${f.side})`;
  const digits = current.review ? current.review[0].digits : 2;
  if (f.throw === null) {   // a double passed: the game ended before a throw
    $("replay-text").textContent = `${f.cube}: the game ends.`;
    return;
  }
  $("replay-text").textContent = (f.cube ? `${f.cube}. ` : "") +
    `Throw ${f.number} of ${frames[frames.length - 1].number}: ` +
    `${who} threw ${throwText(f.throw)}, ` +
    (f.played ? `played ${f.played}` : "no legal move") +
    (d ? ` (${d.label}${d.label === "best" ? "" : `, ${d.loss_points.toFixed(digits)} lost; ` +
      `better ${d.better}`})` : "") + ".";
}

document.addEventListener("keydown", (e) => {
  if (!current || $("play").hidden || e.target.tagName === "SELECT") return;
  if (replay && !$("replay").hidden && (e.key === "ArrowLeft" || e.key === "ArrowRight")) {
    stepTo(replay.step + (e.key === "ArrowLeft" ? -1 : 1));
    e.preventDefault();
    return;
  }
  if (e.key === "t" && !$("throw").disabled) throwDice();
  else if (e.key === "h" && !$("hint").disabled) hint();
  else if (e.key === "u" && !$("undo").disabled) undo();
  else if (e.key === "d" && !$("double").disabled) cube("double");
  else if (e.key === "a" && !$("take").disabled) cube("take");
  else if (e.key === "p" && !$("pass").disabled) cube("pass");
  else if (/^[1-9]$/.test(e.key) && current.state.phase === "move" &&
           current.state.humans.includes(current.state.seat)) {
    const m = current.state.moves[Number(e.key) - 1];
    if (m) move(m.index);
  }
});

async function init() {
  const data = await api("GET", "/api/games");
  games = data.games;
  for (const g of games) option($("game"), g.name, g.name);
  for (const [level, what] of Object.entries(data.levels)) {   // what each strength is
    const input = document.querySelector(`input[name=level][value=${level}]`);
    if (input) input.parentElement.title = what;
  }
  $("game").addEventListener("change", fillSetup);
  $("rules").addEventListener("change", fillPieces);
  $("pieces").addEventListener("change", fillLevels);
  fillSetup();
  $("setup-form").addEventListener("submit", start);
  $("throw").addEventListener("click", throwDice);
  $("hint").addEventListener("click", hint);
  $("undo").addEventListener("click", undo);
  $("edit").addEventListener("click", editPosition);
  $("edit-play").addEventListener("click", playFromHere);
  $("edit-cancel").addEventListener("click", stopEditing);
  for (const action of ["double", "take", "pass"]) {
    $(action).addEventListener("click", () => cube(action));
  }
  $("first").addEventListener("click", () => stepTo(0));
  $("back").addEventListener("click", () => stepTo(replay.step - 1));
  $("forward").addEventListener("click", () => stepTo(replay.step + 1));
  $("last").addEventListener("click", () => stepTo(replay.frames.length));
  $("new").addEventListener("click", () => {
    if (current.state.phase !== "over" && !confirm("Leave this game and set up a new one?")) return;
    $("play").hidden = true; $("review").hidden = true; $("setup").hidden = false;
    remember(null);
  });
  const id = new URLSearchParams(location.search).get("game");
  if (id) await resume(id);
}

init();
