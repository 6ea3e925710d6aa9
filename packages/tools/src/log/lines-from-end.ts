import fs from "node:fs";

/** A file's non-empty lines, last first, read in chunks from the end (the file may be large). */
export async function* linesFromEnd(file: string, chunkBytes = 64 * 1024): AsyncGenerator<string> {
  let handle: fs.promises.FileHandle;
  try {
    handle = await fs.promises.open(file, "r");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return; // pruned meanwhile
    throw error;
  }
  try {
    let position = (await handle.stat()).size;
    let rest = Buffer.alloc(0);
    while (position > 0) {
      const size = Math.min(chunkBytes, position);
      position -= size;
      const chunk = Buffer.alloc(size);
      await handle.read(chunk, 0, size, position);
      const buffer = Buffer.concat([chunk, rest]);
      let end = buffer.length;
      for (let index = buffer.length - 1; index >= 0; index--) {
        if (buffer[index] !== 0x0a) continue;
        if (end > index + 1) yield buffer.subarray(index + 1, end).toString("utf8");
        end = index;
      }
      rest = buffer.subarray(0, end);
    }
    if (rest.length > 0) yield rest.toString("utf8");
  } finally {
    await handle.close();
  }
}
