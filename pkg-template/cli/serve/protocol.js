// What the page and `session-tree serve` agree on for following a file.
//
// The page opens `api/follow?path=REL&offset=N&head=H`, where N is how many
// bytes it holds and H is headHash() of their first HEAD_BYTES. The server
// answers with Server-Sent Events:
//   event: append  data: the base64 of the bytes after the last ones sent; id: the new offset
//   event: reset   the file was rewritten or cut (it shrank, or its first bytes
//                  changed): reload it from the start
// A file is only ever grown by appends; anything else is a reset, so a page
// never shows a file half old and half new.

// The page's own module (the package ships the viewer beside cli/) holds the
// code, so the two ends cannot drift apart.
export { HEAD_BYTES, headHash } from "../../viewer/live.js";
