// Just enough of a DOM for the viewer's renderers that build nodes with createElement and
// textContent (www/markdown.js): elements with children, attributes, a class and a dataset,
// and text nodes. `installDocument()` sets `globalThis.document`. Not a test file itself.

class Node {
  constructor() {
    this.parentNode = null;
    this.childNodes = [];
  }
  get firstChild() {
    return this.childNodes[0] ?? null;
  }
  append(...nodes) {
    for (const n of nodes) {
      const node = typeof n === "string" ? new Text(n) : n;
      node.remove();
      node.parentNode = this;
      this.childNodes.push(node);
    }
  }
  remove() {
    const p = this.parentNode;
    if (!p) return;
    p.childNodes.splice(p.childNodes.indexOf(this), 1);
    this.parentNode = null;
  }
  get textContent() {
    return this.childNodes.map((c) => c.textContent).join("");
  }
  set textContent(value) {
    for (const c of this.childNodes) c.parentNode = null;
    this.childNodes = [];
    if (value !== "") this.append(new Text(String(value)));
  }
}

class Text extends Node {
  constructor(data) {
    super();
    this.data = data;
  }
  get textContent() {
    return this.data;
  }
}

class Element extends Node {
  constructor(tag) {
    super();
    this.tagName = tag.toUpperCase();
    this.className = "";
    this.dataset = {};
    this.style = {};
    this.attributes = {};
  }
  addEventListener(type, listener) {
    this.listeners = [...(this.listeners ?? []), [type, listener]];
  }
  click() {
    for (const [type, listener] of this.listeners ?? []) if (type === "click") listener({ target: this });
  }
  setAttribute(name, value) {
    this.attributes[name] = String(value);
  }
  /** Every element below, in document order. */
  descendants() {
    const out = [];
    const stack = [...this.childNodes].reverse();
    while (stack.length) {
      const n = stack.pop();
      if (!(n instanceof Element)) continue;
      out.push(n);
      for (let i = n.childNodes.length - 1; i >= 0; i--) stack.push(n.childNodes[i]);
    }
    return out;
  }
  /** The deepest nesting of elements below (1 for an element with only text). */
  depth() {
    let max = 0;
    const stack = [[this, 1]];
    while (stack.length) {
      const [n, d] = stack.pop();
      if (d > max) max = d;
      for (const c of n.childNodes) if (c instanceof Element) stack.push([c, d + 1]);
    }
    return max;
  }
}

export function installDocument() {
  globalThis.document = {
    createElement: (tag) => new Element(tag),
    createTextNode: (data) => new Text(String(data)),
  };
}
