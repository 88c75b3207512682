#!/usr/bin/env node
// Viewers for bench/rfms-bench-view, with Foxglove's own client library (@foxglove/ws-protocol):
//   node view_viewers.cjs URL SECONDS count     subscribe to every channel, count what comes; print
//                                               {messages, bytes, latency_ms: {p50, p99}}: the time
//                                               from each S_MAIL's sending (its header's stamp, the
//                                               supervisor's wall clock) to its arrival here
//   node view_viewers.cjs URL SECONDS stall     subscribe to every channel, then never read again
"use strict";
if (process.argv[2] === "--help") {
  // This file's opening comment is its usage.
  const lines = require("fs").readFileSync(__filename, "utf8").split("\n").slice(1);
  for (const l of lines) {
    if (!l.startsWith("//")) break;
    console.log(l.replace(/^\/\/ ?/, ""));
  }
  process.exit(0);
}
const path = require("path");
const { createRequire } = require("module");
const web = createRequire(path.join(__dirname, "..", "view", "web", "package.json"));
const { FoxgloveClient } = web("@foxglove/ws-protocol");
const WebSocket = web("ws");
const protobuf = web("protobufjs");
const descriptor = web("protobufjs/ext/descriptor");

const [url, seconds, mode] = process.argv.slice(2);
if (!url || !(Number(seconds) > 0) || !["count", "stall"].includes(mode)) {
  console.error("usage: view_viewers.cjs ws://HOST:PORT SECONDS count|stall");
  process.exit(2);
}
const ws = new WebSocket(url, [FoxgloveClient.SUPPORTED_SUBPROTOCOL]);
const client = new FoxgloveClient({ ws });
let smail = null, smailType = null, messages = 0, bytes = 0;
const latencies = [];

client.on("advertise", (channels) => {
  for (const c of channels) {
    const id = client.subscribe(c.id);
    if (c.topic === "/rfms/smail") {
      smail = id;
      const set = descriptor.FileDescriptorSet.decode(Buffer.from(c.schema, "base64"));
      smailType = protobuf.Root.fromDescriptor(set).lookupType(c.schemaName);
    }
  }
  if (mode === "stall") setTimeout(() => ws._socket.pause(), 200); // and never resume
});
// The wall clock in nanoseconds, to the microsecond: the S_MAIL's stamp is the supervisor's.
const wallNs = () => BigInt(Math.round((performance.timeOrigin + performance.now()) * 1e3)) * 1000n;

client.on("message", ({ subscriptionId, data }) => {
  const now = wallNs();
  messages++;
  bytes += data.byteLength;
  if (subscriptionId !== smail || messages % 10 !== 0) return; // every tenth S_MAIL timed
  const m = smailType.decode(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
  const stamp = m.header && (m.header.send_time_ns ?? m.header.sendTimeNs); // as the schema names it
  if (stamp == null) return;
  const sent = BigInt(stamp.toString());
  if (sent > 0n) latencies.push(Number(now - sent) / 1e6);
});
setTimeout(() => {
  latencies.sort((a, b) => a - b);
  const q = (p) => (latencies.length ? latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] : null);
  console.log(JSON.stringify({ messages, bytes, latency_ms: { p50: q(0.5), p99: q(0.99), n: latencies.length } }));
  process.exit(0);
}, Number(seconds) * 1000);
