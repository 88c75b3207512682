// Reads an rfms run log with readers no one here wrote: the official MCAP reader (@mcap/core),
// both indexed (summary, chunk and message indexes, seeking by time) and streaming (every record,
// CRCs checked), with the official decompression handlers (@mcap/support), and protobufjs to decode every message with the schema the log carries, as
// Foxglove does. Prints one JSON object; exits 1 with a message on any failure.
//   node tools/mcap-check/check.mjs LOG
import { McapIndexedReader, McapStreamReader } from "@mcap/core";
import { loadDecompressHandlers } from "@mcap/support";
import protobuf from "protobufjs";
import descriptor from "protobufjs/ext/descriptor/index.js";
import { openReadable } from "./readable.mjs";

const path = process.argv[2];
if (!path) {
  console.error("usage: check.mjs LOG");
  process.exit(2);
}

async function main() {
  const { size, readable, read, close } = await openReadable(path);
  const decompressHandlers = await loadDecompressHandlers();
  const reader = await McapIndexedReader.Initialize({ readable, decompressHandlers });
  const types = new Map();  // schema id -> protobufjs Type
  for (const [id, schema] of reader.schemasById) {
    const set = descriptor.FileDescriptorSet.decode(schema.data);
    const root = protobuf.Root.fromDescriptor(set);
    types.set(id, root.lookupType(schema.name));
  }
  // A /rfms/period message holds a period's mailboxes, one repeated field per topic
  // (/rfms/smail is field smail): they are counted as the mailboxes they are. Its one field that
  // is not a topic, predicted_headers, is bytes, not an array, and is not counted.
  const perTopic = {};
  const pictures = {};  // the display channels (/frames, /scene): drawn by the writer, not mail
  let records = 0, mailboxes = 0;
  let first = null, last = null;
  for await (const m of reader.readMessages({ validateCrcs: true })) {
    const channel = reader.channelsById.get(m.channelId);
    const decoded = types.get(channel.schemaId).decode(m.data);
    records++;
    if (channel.topic === "/rfms/period") {
      for (const [field, values] of Object.entries(decoded)) {
        if (!Array.isArray(values)) continue;
        perTopic[`/rfms/${field}`] = (perTopic[`/rfms/${field}`] ?? 0) + values.length;
        mailboxes += values.length;
      }
    } else if (channel.topic === "/frames" || channel.topic === "/scene") {
      pictures[channel.topic] = (pictures[channel.topic] ?? 0) + 1;
    } else {
      perTopic[channel.topic] = (perTopic[channel.topic] ?? 0) + 1;
      mailboxes++;
    }
    if (first === null || m.logTime < first) first = m.logTime;
    if (last === null || m.logTime > last) last = m.logTime;
  }
  // Seeking by time: the messages of one instant in the middle, through the index.
  const middle = first + (last - first) / 2n;
  let atMiddle = 0;
  for await (const m of reader.readMessages({ startTime: middle, endTime: middle })) atMiddle += m.logTime === middle ? 1 : 0;
  const metadata = [];
  for await (const md of reader.readMetadata()) metadata.push(md.name);

  // The same file streamed, record by record.
  const stream = new McapStreamReader({ validateCrcs: true, decompressHandlers });
  stream.append(await read(0, size));
  let streamed = 0;
  for (let r; (r = stream.nextRecord()); ) if (r.type === "Message") streamed++;
  if (!stream.done()) throw new Error("the stream reader did not reach the end of the file");
  await close();

  console.log(JSON.stringify({
    schemas: [...reader.schemasById.values()].map((s) => s.name),
    channels: [...reader.channelsById.values()].map((c) => ({ topic: c.topic, encoding: c.messageEncoding })),
    statistics: reader.statistics ? Number(reader.statistics.messageCount) : null,
    chunks: reader.chunkIndexes.length,
    compression: [...new Set(reader.chunkIndexes.map((c) => c.compression))],
    records,
    messages: mailboxes,
    streamed,
    per_topic: perTopic,
    pictures,
    at_middle: atMiddle,
    metadata,
  }));
}

main().catch((e) => {
  console.error(`check.mjs: ${e.message}`);
  process.exit(1);
});
