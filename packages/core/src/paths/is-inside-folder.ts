import path from "node:path";

/** Whether `file` is `folder` or lies below it. Both are real paths (symbolic links resolved) in the host's form. */
export function isInsideFolder(folder: string, file: string): boolean {
  return file === folder || file.startsWith(folder.endsWith(path.sep) ? folder : `${folder}${path.sep}`);
}
