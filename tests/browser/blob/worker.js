// The worker of blob-source.test.mjs: what each function gives through
// blobSource (tiny pieces) beside what it gives on the same bytes.

import * as st from "/pkg/browser.js";

const { blobSource } = st;

/** Everything the piece-reading functions say of a session, as JSON texts. */
function results(input, options) {
  const out = {};
  const ids = [];
  const walk = (nodes) => {
    for (const n of nodes) {
      if (typeof n.entry?.id === "string") ids.push(n.entry.id);
      walk(n.children);
    }
  };
  const attempt = (fn) => {
    try {
      return JSON.stringify(fn());
    } catch (error) {
      return `throws ${error.message}`;
    }
  };
  out.tree = attempt(() => {
    const tree = st.getTree(input, options);
    walk(tree); // reads every node's entry
    return tree;
  });
  out.count = attempt(() => st.countEntries(input, options));
  out.info = attempt(() => st.sessionInfo(input, options));
  // Each call indexes the source again: the context at three leaves, the other three at one.
  const last = ids.at(-1);
  for (const leaf of [undefined, "no such id", last]) {
    out[`buildSessionContext ${leaf}`] = attempt(() => st.buildSessionContext(input, leaf, options));
  }
  for (const fn of [st.buildContextEntries, st.buildSessionProjection, st.currentSystemMessage]) {
    out[`${fn.name} ${last}`] = attempt(() => fn(input, last, options));
  }
  return out;
}

const handlers = {
  /** `{ cases: [{ label, bytes, pieceSize }] }`: the keys where blob and bytes differ, per case. */
  compare({ cases }) {
    const differences = [];
    const t0 = performance.now();
    let reads = 0;
    for (const { label, bytes, pieceSize } of cases) {
      const view = new Uint8Array(bytes);
      const expected = results(view);
      const source = blobSource(new File([view], `${label}.jsonl`));
      const counted = {
        ...source,
        read(o, l) {
          reads++;
          return source.read(o, l);
        },
      };
      const got = results(counted, { pieceSize });
      for (const key of Object.keys(expected)) {
        if (got[key] !== expected[key])
          differences.push({ label, pieceSize, key, expected: expected[key], got: got[key] });
      }
    }
    return { differences, reads, compared: cases.length, ms: Math.round(performance.now() - t0) };
  },
  /** What blobSource itself says: its fields, its reads, its errors. */
  probe() {
    const out = {};
    const file = new File([new TextEncoder().encode("héllo\n")], "probe.jsonl");
    const source = blobSource(file);
    out.fields = { name: source.name, size: source.size };
    out.slice = Array.from(source.read(1, 2));
    out.empty = Array.from(source.read(7, 0));
    const error = (fn) => {
      try {
        fn();
        return null;
      } catch (e) {
        return { name: e.name, message: e.message };
      }
    };
    out.pastEnd = error(() => source.read(5, 3));
    out.negative = error(() => source.read(-1, 1));
    out.notBlob = error(() => blobSource("text"));
    out.anonymous = blobSource(new Blob(["{}"])).name;
    return out;
  },
  /** The File the page picked (setInputFiles), read after the test changed it on disk. */
  readPicked({ file, pieceSize }) {
    try {
      return { value: st.countEntries(blobSource(file), { pieceSize }) };
    } catch (error) {
      return { error: error.message };
    }
  },
};

self.onmessage = ({ data }) => {
  let reply;
  try {
    reply = { ok: true, value: handlers[data.type](data) };
  } catch (error) {
    reply = { ok: false, message: `${error.name}: ${error.message}` };
  }
  self.postMessage({ id: data.id, ...reply });
};

self.postMessage({ ready: true });
