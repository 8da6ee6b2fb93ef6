// Moved to tools/static-server.mjs (make demo uses it). Kept only so that tests/viewer, which
// another branch owns, keeps working until its import points at tools/: delete on merge.
export * from "../../tools/static-server.mjs";
