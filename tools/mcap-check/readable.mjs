// A file as @mcap/core's indexed reader reads it: size() and read(offset, length), each read whole
// or an error (a file cut short under the reader is said, not read as zeros).
import { open } from "node:fs/promises";

export async function openReadable(path) {
  const file = await open(path, "r");
  const size = (await file.stat()).size;
  const read = async (offset, length) => {
    const buffer = new Uint8Array(Number(length));
    const { bytesRead } = await file.read(buffer, 0, buffer.length, Number(offset));
    if (bytesRead !== buffer.length) throw new Error(`${path}: ${bytesRead} of ${length} bytes at ${offset}`);
    return buffer;
  };
  return { size, readable: { size: async () => BigInt(size), read }, read, close: () => file.close() };
}
