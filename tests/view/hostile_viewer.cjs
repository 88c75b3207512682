// Viewers that break the Foxglove protocol, against a running rfms-view: each mistake is answered
// with an error status and the connection stays usable; a message over the size limit closes
// that connection only; a handshake without the protocol is refused; past the viewer limit a
// connection is refused with 503; a page of another Origin, or a request for another Host (a DNS
// name rebound to this machine), is refused with 403. Given the server's TOKEN, the last slot is
// the token holder's: MAX_VIEWERS - 1 others fill the server, and the holder still gets in.
// Prints one line per check; exit 0 when all held.
//   node hostile_viewer.cjs URL MAX_VIEWERS [TOKEN]
"use strict";
const path = require("path");
const { createRequire } = require("module");
const web = createRequire(path.join(__dirname, "..", "..", "view", "web", "package.json"));
const WebSocket = web("ws");

const [url, maxViewers, token] = [process.argv[2], Number(process.argv[3]), process.argv[4] || ""];
const PROTOCOL = "foxglove.websocket.v1";
const failures = [];
const check = (ok, what) => {
  console.log(`${ok ? "ok  " : "FAIL"} ${what}`);
  if (!ok) failures.push(what);
};
const within = (ms, promise, what) =>
  Promise.race([promise, new Promise((_, no) => setTimeout(() => no(new Error(`${what}: no answer in ${ms} ms`)), ms))]);

// Opens a viewer and collects its text messages.
function viewer() {
  return new Promise((yes, no) => {
    const ws = new WebSocket(url, [PROTOCOL]);
    const texts = [];
    const waiters = [];
    ws.on("message", (data, binary) => {
      if (binary) return;
      const m = JSON.parse(data.toString());
      texts.push(m);
      for (const w of waiters.splice(0)) w();
    });
    ws.on("open", () => yes({ ws, texts, next: () => new Promise((r) => waiters.push(r)) }));
    ws.on("error", no);
  });
}

// The server's reply to `send`: the next status message.
async function statusAfter(v, send) {
  const before = v.texts.length;
  v.ws.send(send);
  while (!v.texts.slice(before).some((m) => m.op === "status")) await within(5000, v.next(), "status");
  return v.texts.slice(before).find((m) => m.op === "status");
}

// The status of a handshake (its HTTP code, or "open"), with the ws library's options (origin,
// headers) and an optional query; an open one is kept open when `keep` collects it.
function refusedHandshake(protocols, options = {}, query = "", keep = null) {
  return new Promise((yes) => {
    const ws = new WebSocket(url + query, protocols, options);
    ws.on("unexpected-response", (req, res) => yes(res.statusCode));
    ws.on("open", () => {
      if (keep) keep.push(ws);
      else ws.close();
      yes("open");
    });
    ws.on("error", () => yes("error"));
  });
}

(async () => {
  const v = await viewer();
  while (!v.texts.some((m) => m.op === "advertise")) await within(5000, v.next(), "advertise");
  check(v.texts[0].op === "serverInfo", "the server says who it is first");
  const mistakes = [
    ["{{{ not json", "not JSON"],
    [JSON.stringify({ subscriptions: [] }), "no op"],
    [JSON.stringify({ op: "setParameters", parameters: [] }), "an op the server does not take"],
    [JSON.stringify({ op: "subscribe", subscriptions: [{ id: 1, channelId: 99999 }] }), "a channel that does not exist"],
    [JSON.stringify({ op: "subscribe", subscriptions: [{ id: "1", channelId: 0 }] }), "an id that is a string"],
    [JSON.stringify({ op: "subscribe", subscriptions: [{ id: -1, channelId: 0 }] }), "a negative id"],
    [JSON.stringify({ op: "subscribe", subscriptions: "all" }), "subscriptions that are no array"],
    [JSON.stringify({ op: "unsubscribe", subscriptionIds: [{}] }), "an unsubscription of an object"],
    [Buffer.from([1, 0, 0, 0, 0]), "a binary message"],
  ];
  for (const [send, what] of mistakes) {
    const s = await statusAfter(v, send);
    check(s && s.level === 2, `${what}: an error status ("${s && s.message}")`);
  }
  v.ws.send(JSON.stringify({ op: "subscribe", subscriptions: [{ id: 7, channelId: 0 }] }));
  const twice = await statusAfter(v, JSON.stringify({ op: "subscribe", subscriptions: [{ id: 7, channelId: 1 }] }));
  check(twice.level === 2 && /in use/.test(twice.message), "a subscription id used twice is refused");
  check(v.ws.readyState === WebSocket.OPEN, "after all that the connection is still open");

  // Over the size limit: this connection closes (1009), the others do not.
  const big = await viewer();
  const closed = new Promise((r) => big.ws.on("close", (code) => r(code)));
  big.ws.send("x".repeat(200 * 1024));
  const code = await within(5000, closed, "close");
  check(code === 1009, `a message over the limit closes its own connection (code ${code})`);
  check(v.ws.readyState === WebSocket.OPEN, "... and no other");

  check((await refusedHandshake([])) === 400, "a handshake without the subprotocol is refused (400)");
  check((await refusedHandshake(["mqtt"])) === 400, "... and one with another subprotocol");

  // Who may connect: the page's own origin and Foxglove's web app; no other origin, no other Host.
  const port = new URL(url).port;
  check((await refusedHandshake([PROTOCOL], { origin: `http://127.0.0.1:${port}` })) === "open", "the page's own origin connects");
  check((await refusedHandshake([PROTOCOL], { origin: "https://app.foxglove.dev" })) === "open", "Foxglove's web app connects");
  check((await refusedHandshake([PROTOCOL], { origin: "http://evil.example" })) === 403, "another origin is refused (403)");
  check((await refusedHandshake([PROTOCOL], { headers: { Host: `rebound.example:${port}` } })) === 403,
    "another Host, as a rebound DNS name sends, is refused (403)");
  check((await refusedHandshake([PROTOCOL], { origin: `http://rebound.example:${port}`,
    headers: { Host: `rebound.example:${port}` } })) === 403, "... even as its own page's origin");

  // Up to the limit, then 503; with a token, the holder's slot stays free until the holder comes.
  const more = [];
  const others = token ? maxViewers - 1 : maxViewers;
  for (let i = 1; i < others; ++i) more.push(await viewer());
  check((await refusedHandshake([PROTOCOL])) === 503, `viewer ${others + 1} without the token is refused (503)`);
  const holders = [];
  if (token) {
    check((await refusedHandshake([PROTOCOL], {}, "?token=wrong" + token.slice(5), holders)) === 503, "... and with a wrong token");
    check((await refusedHandshake([PROTOCOL], {}, `?token=${token}`, holders)) === "open",
      `the token's holder gets in as viewer ${maxViewers}`);
  }
  for (const m of more) m.ws.close();
  for (const h of holders) h.close();
  v.ws.close();
  process.exit(failures.length === 0 ? 0 : 1);
})().catch((e) => {
  console.error(`hostile_viewer: ${e.message}`);
  process.exit(1);
});
