// What the page and `session-tree serve` agree on for following a file, shared
// by both (plain ESM: the browser loads it from the package too).
//
// The page opens `api/follow?path=REL&offset=N&head=H`, where N is how many
// bytes it holds and H is headHash() of their first HEAD_BYTES. The server
// answers with Server-Sent Events:
//   event: append  data: the base64 of the bytes after the last ones sent; id: the new offset
//   event: reset   the file was rewritten or cut (it shrank, or its first bytes
//                  changed): reload it from the start
// A file is only ever grown by appends; anything else is a reset, so a page
// never shows a file half old and half new.

export const HEAD_BYTES = 4096;

/** FNV-1a (32 bits) of the first HEAD_BYTES of `bytes`, as 8 hex digits. */
export function headHash(bytes) {
  const n = Math.min(bytes.length, HEAD_BYTES);
  let h = 0x811c9dc5;
  for (let i = 0; i < n; i++) {
    h ^= bytes[i];
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(16).padStart(8, "0");
}
