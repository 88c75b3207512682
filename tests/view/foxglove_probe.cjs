// A Foxglove viewer for the tests: connects to rfms-view with Foxglove's own client library
// (@foxglove/ws-protocol, over the `ws` WebSocket), subscribes to the topics named, decodes every
// message with the schema its channel advertised (protobufjs reading the FileDescriptorSet), and
// writes what it received as JSON lines: {"topic", "timestamp" (ns, a string), "message"}.
//
//   node foxglove_probe.cjs URL SECONDS OUT.jsonl TOPIC...
// Prints "subscribed" once every topic's channel is subscribed to; stops after SECONDS, at
// SIGTERM or when the server closes the connection, and exits 0 when every topic was heard from, 1 otherwise (saying which).
"use strict";
const path = require("path");
const fs = require("fs");
const { createRequire } = require("module");

const web = createRequire(path.join(__dirname, "..", "..", "view", "web", "package.json"));
const { FoxgloveClient } = web("@foxglove/ws-protocol");
const WebSocket = web("ws");
const protobuf = web("protobufjs");
const descriptor = web("protobufjs/ext/descriptor");

const [url, seconds, out, ...topics] = process.argv.slice(2);
if (!url || !seconds || !out || topics.length === 0) {
  console.error("usage: node foxglove_probe.cjs URL SECONDS OUT.jsonl TOPIC...");
  process.exit(2);
}

const sink = fs.createWriteStream(out);
const bySubscription = new Map(); // subscription id -> { topic, type }
const heard = new Map(topics.map((t) => [t, 0]));
const client = new FoxgloveClient({ ws: new WebSocket(url, [FoxgloveClient.SUPPORTED_SUBPROTOCOL]) });

function typeOf(channel) {
  if (channel.encoding !== "protobuf" || channel.schemaEncoding !== "protobuf")
    throw new Error(`${channel.topic}: encoding ${channel.encoding}/${channel.schemaEncoding}, not protobuf`);
  const set = descriptor.FileDescriptorSet.decode(Buffer.from(channel.schema, "base64"));
  return protobuf.Root.fromDescriptor(set).lookupType(channel.schemaName);
}

client.on("advertise", (channels) => {
  for (const channel of channels) {
    if (!heard.has(channel.topic)) continue;
    const id = client.subscribe(channel.id);
    bySubscription.set(id, { topic: channel.topic, type: typeOf(channel) });
  }
  if (bySubscription.size === heard.size) console.log("subscribed");
});
client.on("message", ({ subscriptionId, timestamp, data }) => {
  const s = bySubscription.get(subscriptionId);
  if (!s) return;
  const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  const message = s.type.toObject(s.type.decode(bytes), { longs: String, enums: String, defaults: true });
  heard.set(s.topic, heard.get(s.topic) + 1);
  sink.write(JSON.stringify({ topic: s.topic, timestamp: timestamp.toString(), message }) + "\n");
});
client.on("error", (e) => {
  console.error(`foxglove_probe: ${e.message}`);
  process.exit(1);
});

let finishing = false;
function finish() {
  if (finishing) return;
  finishing = true;
  client.close();
  sink.end(() => {
    const silent = [...heard].filter(([, n]) => n === 0).map(([t]) => t);
    console.log([...heard].map(([t, n]) => `${t} ${n}`).join(", "));
    if (silent.length > 0) {
      console.error(`foxglove_probe: nothing received on ${silent.join(", ")}`);
      process.exit(1);
    }
    process.exit(0);
  });
}
setTimeout(finish, Number(seconds) * 1000);
process.on("SIGTERM", finish);
client.on("close", finish); // the server went (a replay at its end)
