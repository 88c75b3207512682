// Drives the view's page in Debian's headless Chromium (playwright-core), one command a line on
// stdin, one JSON answer a line on stdout, so that a test can interleave the page with the arm's
// moves:
//   open URL           load the page and wait until it has drawn 10 pictures
//   pose               what the page drew last: {period, angles, rtstate, move, target,
//                      worldFrames, pictures}
//   shot PATH          a screenshot of the page
//   click ID           click the element with that id
//   command NAME [JSON]  the page's own command function, awaited: {status}
//   send NAME [JSON]   the same, not awaited (a task that runs for a while): {ok}
//   text ID            an element's text
//   quit
"use strict";
const path = require("path");
const readline = require("readline");
const { createRequire } = require("module");
const web = createRequire(path.join(__dirname, "..", "..", "view", "web", "package.json"));
const { chromium } = web("playwright-core");

const CHROMIUM = process.env.RFMS_CHROMIUM || "/usr/bin/chromium";

(async () => {
  // WebGL without a GPU: SwiftShader, Chromium's software renderer.
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--use-angle=swiftshader", "--enable-unsafe-swiftshader", "--no-sandbox"],
  });
  const page = await browser.newPage({ viewport: { width: 1280, height: 760 } });
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  const say = (o) => process.stdout.write(JSON.stringify(o) + "\n");
  const lines = readline.createInterface({ input: process.stdin });
  for await (const line of lines) {
    const [verb, ...rest] = line.trim().split(" ");
    const arg = rest.join(" ");
    try {
      if (verb === "open") {
        await page.goto(arg);
        await page.waitForFunction(() => window.rfmsDesk.pictures >= 10, null, { timeout: 30000 });
        say({ ok: true, errors });
      } else if (verb === "pose") {
        say(await page.evaluate(() => window.rfmsDesk));
      } else if (verb === "shot") {
        await page.screenshot({ path: arg });
        say({ ok: true });
      } else if (verb === "click") {
        await page.click(`#${arg}`);
        say({ ok: true });
      } else if (verb === "command") {
        const [name, ...body] = rest;
        const json = body.length ? JSON.parse(body.join(" ")) : undefined;
        say({ status: await page.evaluate(([n, b]) => window.rfmsCommand(n, b), [name, json]) });
      } else if (verb === "send") {
        const [name, ...body] = rest;
        const json = body.length ? JSON.parse(body.join(" ")) : undefined;
        await page.evaluate(([n, b]) => { window.rfmsCommand(n, b); }, [name, json]);
        say({ ok: true });
      } else if (verb === "text") {
        say({ text: await page.textContent(`#${arg}`) });
      } else if (verb === "quit") {
        break;
      } else {
        say({ error: `no command '${verb}'` });
      }
    } catch (e) {
      say({ error: e.message });
    }
  }
  await browser.close();
})().catch((e) => {
  process.stdout.write(JSON.stringify({ error: e.message }) + "\n");
  process.exit(1);
});
