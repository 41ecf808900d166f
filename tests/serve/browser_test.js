// Browser test of damka serve's explorer: starts `damka serve` on a free
// loopback port, opens the page in Debian's Chromium (headless, driven by
// puppeteer-core), plays a move by clicking its two squares, and checks the
// board and the values shown against the API; also the statute panel, the
// material's statistics, and the mirrored (Filipino) and numeric (English) boards.  Saves a screenshot.
// Environment: DAMKA_EXE, DAMKA_SERVE_TABLES, DAMKA_CHROMIUM, DAMKA_SCREENSHOT;
// puppeteer-core through NODE_PATH (tests/serve/CMakeLists.txt installs it).
"use strict";

const { spawn } = require("child_process");
const fs = require("fs");
const os = require("os");
const path = require("path");
const puppeteer = require("puppeteer-core");

const env = (name) => {
  if (!process.env[name]) throw new Error(`${name} is not set`);
  return process.env[name];
};

let failures = 0;
function check(ok, what, detail) {
  console.log(`${ok ? "ok  " : "FAIL"} ${what}${ok || detail === undefined ? "" : ": " + JSON.stringify(detail)}`);
  if (!ok) failures++;
}
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

function startServer() {
  return new Promise((resolve, reject) => {
    const child = spawn(env("DAMKA_EXE"), ["serve", "--port", "0", "--tables", env("DAMKA_SERVE_TABLES"), "--quiet"],
                        { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    const timer = setTimeout(() => reject(new Error("damka serve did not start: " + out)), 20000);
    child.stdout.on("data", (d) => {
      out += d;
      const m = out.match(/http:\/\/127\.0\.0\.1:(\d+)\//);
      if (m) {
        clearTimeout(timer);
        resolve({ child, base: `http://127.0.0.1:${m[1]}` });
      }
    });
    child.on("exit", (code) => reject(new Error(`damka serve exited (${code}): ${out}`)));
  });
}

async function api(base, variant, fen) {
  const r = await fetch(`${base}/api/v1/${variant}?fen=${encodeURIComponent(fen)}`);
  if (r.status !== 200) throw new Error(`API ${variant} ${fen}: ${r.status}`);
  return r.json();
}

// What the page shows: the value cells, the move list, the pieces on the board.
async function shown(page) {
  return page.evaluate(() => ({
    fen: document.getElementById("fen").value,
    wdl: document.getElementById("wdl").textContent,
    dtw: document.getElementById("dtw").textContent,
    dtc: document.getElementById("dtc").textContent,
    moves: [...document.querySelectorAll("#moves li")].map((li) => ({
      move: li.querySelector("button") && li.querySelector("button").dataset.move, cls: li.className })),
    pv: [...document.querySelectorAll("#pv li")].map((li) => li.textContent),
    pvText: [...document.querySelectorAll("#pv li")]
      .map((li) => (li.dataset.number ? li.dataset.number + " " : "") + li.textContent).join(" "),
    pieces: [...document.querySelectorAll("#board g.piece")].map((g) => g.dataset.piece + ":" + g.dataset.kind).sort(),
    squares: [...document.querySelectorAll("#board rect[data-square]")].map((r) => r.dataset.square),
    permalink: document.getElementById("permalink").getAttribute("href"),
    statutes: (document.getElementById("statute-summary") || {}).textContent || "",
  }));
}

const valueText = (v, distance) =>
  v.status ? v.status : !distance || v.result === "draw" ? v.result : `${v.result} in ${v.plies} ${v.plies === 1 ? "ply" : "plies"}`;

async function waitIdle(page, fen, base, variant) {
  if (base) fen = (await api(base, variant, fen)).fen;  // as the server writes it
  await page.waitForFunction((f) => document.body.dataset.loading === "" &&
                               (!f || document.getElementById("fen").value === f), { timeout: 20000 }, fen);
  // The statute panel is filled after the values: wait for it too.
  await page.waitForFunction(() => document.getElementById("statutes").textContent !== "" &&
                             !document.getElementById("statute-progress"), { timeout: 20000 });
}

async function checkValues(page, base, variant, label) {
  const s = await shown(page);
  const j = await api(base, variant, s.fen);
  check(s.wdl === valueText(j.wdl, false) && s.dtw === valueText(j.dtw, true) && s.dtc === valueText(j.dtc, true),
        `${label}: values shown equal the API's`, { shown: [s.wdl, s.dtw, s.dtc], api: [j.wdl, j.dtw, j.dtc] });
  check(same(s.moves.map((m) => [m.move, m.cls]), j.moves.map((m) => [m.move, m.result])),
        `${label}: move list in the API's order with its colours`, { shown: s.moves, api: j.moves });
  check(same(s.pv, j.pv), `${label}: principal variation shown`, { shown: s.pv, api: j.pv });
  if (j.pv.length) {
    // Numbered in full moves as `damka probe --pv` writes the line (one numbering everywhere).
    const cli = require("child_process").execFileSync(env("DAMKA_EXE"),
      ["probe", "--pv", "-v", variant, "--tables", env("DAMKA_SERVE_TABLES"), s.fen], { encoding: "utf8" });
    const line = (cli.match(/^Principal variation \(\d+ pl(?:y|ies)\): (.*)$/m) || [])[1];
    check(line === s.pvText, `${label}: PV numbered in moves as the CLI writes it`, { shown: s.pvText, cli: line });
  }
  return { s, j };
}

async function main() {
  const { child, base } = await startServer();
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "damka-chromium-"));
  const browser = await puppeteer.launch({
    executablePath: env("DAMKA_CHROMIUM"),
    headless: true,
    userDataDir: profile,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           `--user-data-dir=${profile}`],
  });
  try {
    const page = await browser.newPage();
    await page.setViewport({ width: 1100, height: 760 });
    const errors = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });

    // 1. A Russian position: king and man against a king.
    const fen = "W:WKa1,c3:BKh8";
    await page.goto(`${base}/?variant=russian&fen=${encodeURIComponent(fen)}`, { waitUntil: "networkidle0" });
    await waitIdle(page, fen, base, "russian");
    let { s, j } = await checkValues(page, base, "russian", "start");
    check(same(s.pieces, ["a1:W", "c3:w", "h8:B"]), "board shows the FEN's pieces", s.pieces);
    check(s.squares.length === 32 && s.squares.includes("a1") && !s.squares.includes("b1"),
          "standard board: a1 is a playing square", s.squares);

    // 2. Play the best move by clicking its from and to squares.
    const best = j.moves[0];
    const path_ = best.move.split(/[-:x]/);
    await page.click(`rect[data-square="${path_[0]}"]`);
    const targets = await page.$$eval("rect.target", (rs) => rs.map((r) => r.dataset.square));
    check(targets.includes(path_[path_.length - 1]), "picking a piece marks its targets", targets);
    await page.click(`rect[data-square="${path_[path_.length - 1]}"]`);
    await waitIdle(page, best.fen_after);
    ({ s, j } = await checkValues(page, base, "russian", `after ${best.move}`));
    check(s.fen === best.fen_after, `${best.move} played: the FEN is the move's fen_after`, s.fen);
    check(s.pieces.some((p) => p.startsWith(path_[path_.length - 1] + ":")) &&
          !s.pieces.some((p) => p.startsWith(path_[0] + ":")), `${best.move}: the piece moved on the board`, s.pieces);
    check(s.permalink === `/?variant=russian&fen=${encodeURIComponent(best.fen_after)}`, "the link reproduces the position",
          s.permalink);

    // 3. Back, then the PV step plays the principal variation's first move.
    await page.click("#back");
    await waitIdle(page, fen);
    await page.click("#pv-step");
    const before = await api(base, "russian", fen);
    const pvMove = before.moves.find((m) => m.move === before.pv[0]);
    await waitIdle(page, pvMove.fen_after);
    check((await shown(page)).fen === pvMove.fen_after, "PV step plays the PV's first move", pvMove.move);

    // Clicking the PV's second move plays the line up to it.
    await page.click("#back");
    await waitIdle(page, fen);
    const second = (await api(base, "russian", pvMove.fen_after)).moves.find((m) => m.move === before.pv[1]);
    await page.click("#pv li:nth-child(2)");
    await waitIdle(page, second.fen_after);
    check((await shown(page)).fen === second.fen_after, "clicking a PV move plays the line up to it", second.fen_after);

    // 4. The statute panel for a 3 kings vs 1 king position.
    const kings = "W:WKa1,Kc3,Ke5:BKh8";
    await page.goto(`${base}/?variant=russian&fen=${encodeURIComponent(kings)}`, { waitUntil: "networkidle0" });
    await waitIdle(page, kings, base, "russian");
    const verdict = await (await fetch(`${base}/api/v1/russian/statutes?fen=${encodeURIComponent(kings)}` +
                                       `&rulebook=russian-federation&moves=0`)).json();
    s = await shown(page);
    check(s.statutes === verdict.statutes.summary, "statute panel shows the verdict", { shown: s.statutes,
          api: verdict.statutes.summary });
    await checkValues(page, base, "russian", "3Kv1K");
    // While a verdict is computed the panel says so, with the seconds spent:
    // the statute request held back 1.5 s here, as a first request on large tables takes.
    await page.setRequestInterception(true);
    const hold = (r) => (r.url().includes("/statutes?") ? setTimeout(() => r.continue(), 1500) : r.continue());
    page.on("request", hold);
    await page.$eval("#moves-played", (e) => { e.value = "1"; e.dispatchEvent(new Event("change")); });
    const during = await page.waitForSelector("#statute-progress", { timeout: 1000 }).then(
      () => page.$eval("#statute-progress", (e) => e.textContent), () => "");
    await page.waitForFunction(() => !document.getElementById("statute-progress") &&
                               document.getElementById("statute-summary"), { timeout: 20000 });
    check(during.startsWith("computing the verdict"), "statute panel shows progress while the verdict is computed",
          during);
    page.off("request", hold);
    await page.setRequestInterception(false);
    await page.$eval("#moves-played", (e) => { e.value = "0"; e.dispatchEvent(new Event("change")); });
    await waitIdle(page);
    // The material's statistics panel: the API's counts and longest win.
    const st = (await (await fetch(`${base}/api/v1/russian/stats?material=3Kv1K`)).json()).materials[0];
    const panel = await page.$eval("#stats", (e) => e.textContent);
    check(panel.includes(`wins ${st.wins.toLocaleString("en")}`) && panel.includes(st.longest_win.dtw.fen),
          "material statistics shown", { shown: panel, wins: st.wins, fen: st.longest_win.dtw.fen });
    await page.screenshot({ path: env("DAMKA_SCREENSHOT"), fullPage: true });
    console.log(`screenshot: ${env("DAMKA_SCREENSHOT")}`);

    // 5. Filipino: mirrored board and names (b1 is a playing square, a1 is not).
    const fil = "W:Wf3,d3:Be6";
    await page.goto(`${base}/?variant=filipino&fen=${encodeURIComponent(fil)}`, { waitUntil: "networkidle0" });
    await waitIdle(page, fil, base, "filipino");
    s = await shown(page);
    check(s.squares.includes("b1") && !s.squares.includes("a1"), "Filipino board is mirrored", s.squares);
    check(same(s.pieces, ["d3:w", "e6:b", "f3:w"].sort()), "Filipino pieces on their named squares", s.pieces);
    const x = await page.$eval('rect[data-square="b1"]', (r) => +r.getAttribute("x"));
    const x2 = await page.$eval('rect[data-square="h1"]', (r) => +r.getAttribute("x"));
    check(x < x2, "Filipino b1 drawn left of h1", [x, x2]);
    await checkValues(page, base, "filipino", "Filipino");

    // 6. English: numeric squares; play a move by clicking.
    const eng = "B:W21,K30:B3";
    await page.goto(`${base}/?variant=english&fen=${encodeURIComponent(eng)}`, { waitUntil: "networkidle0" });
    await waitIdle(page, eng, base, "english");
    ({ s, j } = await checkValues(page, base, "english", "English"));
    check(s.squares.includes("1") && s.squares.includes("32"), "English board numbered 1..32", s.squares.slice(0, 4));
    const em = j.moves[0], ep = em.move.split(/[-x]/);
    await page.click(`rect[data-square="${ep[0]}"]`);
    await page.click(`rect[data-square="${ep[ep.length - 1]}"]`);
    await waitIdle(page, em.fen_after);
    check((await shown(page)).fen === em.fen_after, `English ${em.move} played by clicking`, em.fen_after);

    check(errors.length === 0, "no script errors on the page", errors);
  } finally {
    await browser.close();
    child.kill("SIGTERM");
    fs.rmSync(profile, { recursive: true, force: true });
  }
}

main().then(() => {
  console.log(failures ? `${failures} check(s) failed` : "browser test passed");
  process.exit(failures ? 1 : 0);
}, (e) => {
  console.error("browser test error:", e);
  process.exit(1);
});
