// proto/foxglove.proto declares, in the project's own words, the Foxglove messages rfms sends.
// Foxglove's viewers read them by their names, so every message, field and enum value declared
// there must have the name, number, type and cardinality that Foxglove's published schemas
// (@foxglove/schemas, the version pinned in view/web/package-lock.json) give it.
//   node foxglove_schemas.cjs   -> exit 0, or 1 with every disagreement listed
"use strict";
const path = require("path");
const { createRequire } = require("module");

const root = path.join(__dirname, "..", "..");
const web = createRequire(path.join(root, "view", "web", "package.json"));
const protobuf = web("protobufjs");
const { foxgloveMessageSchemas } = web("@foxglove/schemas/internal");

const ours = new protobuf.Root();
ours.loadSync(path.join(root, "proto", "foxglove.proto"), { keepCase: true }).resolveAll();

const primitive = { int32: "sfixed32", uint32: "fixed32", bytes: "bytes", string: "string", boolean: "bool", float64: "double" };

// Field numbers as Foxglove's generator gives them: explicit where a field says, else counting up
// past the explicit ones.
function theirFields(schema) {
  const explicit = new Set(schema.fields.filter((f) => f.protobufFieldNumber != null).map((f) => f.protobufFieldNumber));
  let next = 1;
  return schema.fields.map((f) => {
    let number = f.protobufFieldNumber;
    if (number == null) {
      while (explicit.has(next)) ++next;
      number = next++;
    }
    let type;
    if (f.type.type === "primitive") type = f.type.name === "time" ? "google.protobuf.Timestamp"
      : f.type.name === "duration" ? "google.protobuf.Duration" : primitive[f.type.name];
    else if (f.type.type === "enum") type = f.type.enum.protobufEnumName;
    else type = f.type.schema.protoEquivalent ?? f.type.schema.name;
    return { name: f.name, number, type, repeated: f.array != null, enumValues: f.type.type === "enum" ? f.type.enum.values : null };
  });
}

const problems = [];
let checked = 0;
for (const message of ours.lookup("foxglove").nestedArray) {
  if (!(message instanceof protobuf.Type)) continue;
  const schema = foxgloveMessageSchemas[message.name];
  if (!schema) { problems.push(`${message.name}: Foxglove has no such message`); continue; }
  const theirs = new Map(theirFields(schema).map((f) => [f.name, f]));
  for (const field of message.fieldsArray) {
    const t = theirs.get(field.name);
    const where = `${message.name}.${field.name}`;
    if (!t) { problems.push(`${where}: not a field of Foxglove's ${message.name}`); continue; }
    const ourType = field.type.replace(/^foxglove\./, "");
    const theirType = t.type.replace(/^foxglove\./, "");
    if (field.id !== t.number) problems.push(`${where}: number ${field.id}, Foxglove's ${t.number}`);
    if (ourType !== theirType) problems.push(`${where}: type ${ourType}, Foxglove's ${theirType}`);
    if (field.repeated !== t.repeated) problems.push(`${where}: repeated ${field.repeated}, Foxglove's ${t.repeated}`);
    if (t.enumValues) {
      const e = message.lookupEnum(field.type);
      for (const v of t.enumValues)
        if (e.values[v.name] !== v.value) problems.push(`${where}: ${v.name} is ${e.values[v.name]}, Foxglove's ${v.value}`);
    }
    ++checked;
  }
}
if (problems.length > 0) {
  console.error(problems.join("\n"));
  process.exit(1);
}
console.log(`${checked} fields agree with @foxglove/schemas`);
