// The messages of some topics of a run log, read as Foxglove opens a file: the official MCAP
// reader (@mcap/core, indexed: through the summary and the chunk indexes, every CRC checked) with
// its decompression handlers (@mcap/support), each message decoded with its channel's schema
// (protobufjs reading the FileDescriptorSet the file carries). Written as JSON lines,
// {"topic", "timestamp" (the log time in ns, a string), "message"}; one JSON line of figures
// ({"channels": {topic: schema name}, "messages": {topic: count}}) on stdout. Exits 1 when a topic
// named has no messages, saying which.
//   node tools/mcap-check/messages.mjs LOG OUT.jsonl TOPIC...
import { writeFile } from "node:fs/promises";
import { McapIndexedReader } from "@mcap/core";
import { loadDecompressHandlers } from "@mcap/support";
import protobuf from "protobufjs";
import descriptor from "protobufjs/ext/descriptor/index.js";
import { openReadable } from "./readable.mjs";

const [path, out, ...topics] = process.argv.slice(2);
if (!path || !out || topics.length === 0) {
  console.error("usage: messages.mjs LOG OUT.jsonl TOPIC...");
  process.exit(2);
}

async function main() {
  const { readable, close } = await openReadable(path);
  const reader = await McapIndexedReader.Initialize({ readable, decompressHandlers: await loadDecompressHandlers() });
  const channels = {};
  const typeOf = new Map();  // channel id -> protobufjs Type, for the topics asked for
  for (const [id, channel] of reader.channelsById) {
    const schema = reader.schemasById.get(channel.schemaId);
    channels[channel.topic] = schema ? schema.name : "";
    if (!topics.includes(channel.topic)) continue;
    if (channel.messageEncoding !== "protobuf" || !schema || schema.encoding !== "protobuf")
      throw new Error(`${channel.topic}: not protobuf with a protobuf schema`);
    const root = protobuf.Root.fromDescriptor(descriptor.FileDescriptorSet.decode(schema.data));
    typeOf.set(id, { topic: channel.topic, type: root.lookupType(schema.name) });
  }
  const counts = Object.fromEntries(topics.map((t) => [t, 0]));
  const lines = [];
  for await (const m of reader.readMessages({ topics, validateCrcs: true })) {
    const { topic, type } = typeOf.get(m.channelId);
    const message = type.toObject(type.decode(m.data), { longs: String, enums: String, defaults: true });
    counts[topic]++;
    lines.push(JSON.stringify({ topic, timestamp: m.logTime.toString(), message }) + "\n");
  }
  await close();
  await writeFile(out, lines.join(""));
  console.log(JSON.stringify({ channels, messages: counts }));
  const silent = topics.filter((t) => counts[t] === 0);
  if (silent.length > 0) throw new Error(`no messages on ${silent.join(", ")}`);
}

main().catch((e) => {
  console.error(`messages.mjs: ${e.message}`);
  process.exit(1);
});
