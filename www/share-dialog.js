// The redaction review of "Share…": every finding of the scan in context,
// each with a tickbox (all ticked at first), and a field to add strings of
// one's own. "Download" hands the ticked ones to `onBuild`, which makes the
// file; an error it throws is shown here and the dialog stays open.

import { customFinding } from "./redact.js";
import { el } from "./render.js";

export class ShareDialog {
  constructor(dialog) {
    this.dialog = dialog;
    this.items = []; // { finding, box }
    this.onBuild = null;
    dialog.addEventListener("submit", (e) => {
      e.preventDefault();
      const action = e.submitter?.value;
      if (action === "cancel") dialog.close();
      else if (action === "add") this.addOwn();
      else if (action === "download") this.build();
    });
  }

  /** Opens the review of `findings` for the leaf `leafId`; `onBuild(redactions)` makes and saves the file. */
  open(leafId, findings, onBuild) {
    const { dialog } = this;
    this.onBuild = onBuild;
    this.items = [];
    dialog.querySelector("#share-leaf").textContent = leafId;
    dialog.querySelector("#share-error").textContent = "";
    dialog.querySelector("#share-own").value = "";
    const list = dialog.querySelector("#share-findings");
    list.replaceChildren();
    for (const f of findings) this.add(f);
    this.summary();
    dialog.showModal();
  }

  add(finding) {
    const list = this.dialog.querySelector("#share-findings");
    const li = el("li", "finding");
    li.dataset.testid = "redaction";
    li.dataset.kind = finding.kind;
    const label = el("label", "finding-head");
    const box = el("input");
    box.type = "checkbox";
    box.checked = true;
    box.addEventListener("change", () => this.summary());
    label.append(box, el("span", "finding-kind", finding.label), el("code", "finding-text", finding.text));
    label.append(el("span", "muted", ` → ${finding.replacement}`));
    if (finding.count > 1) {
      const more = finding.count > finding.places.length ? `, the first ${finding.places.length} below` : "";
      label.append(el("span", "muted", ` · ${finding.count} places${more}`));
    }
    li.append(label);
    const places = el("ul", "finding-places");
    for (const p of finding.places) {
      const row = el("li", "muted small");
      row.append(el("span", "mono", p.entryId ? `${p.entryId} ${p.field}: ` : `${p.field}: `));
      row.append(el("span", "", `…${p.before}`), el("mark", "", finding.text), el("span", "", `${p.after}…`));
      places.append(row);
    }
    if (finding.kind === "custom") places.append(el("li", "muted small", "added by you: replaced wherever it occurs"));
    li.append(places);
    list.append(li);
    this.items.push({ finding, box });
  }

  addOwn() {
    const input = this.dialog.querySelector("#share-own");
    const text = input.value;
    if (!text.trim()) return;
    if (!this.items.some((i) => i.finding.text === text)) this.add(customFinding(text));
    input.value = "";
    this.summary();
  }

  summary() {
    const ticked = this.items.filter((i) => i.box.checked).length;
    this.dialog.querySelector("#share-summary").textContent = this.items.length
      ? `${ticked} of ${this.items.length} will be replaced.`
      : "Nothing that looks like a secret was found. Add your own strings if you need to.";
  }

  async build() {
    const redactions = this.items
      .filter((i) => i.box.checked)
      .map(({ finding: { kind, text, replacement } }) => ({ kind, text, replacement }));
    const error = this.dialog.querySelector("#share-error");
    error.textContent = "";
    try {
      await this.onBuild(redactions);
      this.dialog.close();
    } catch (e) {
      error.textContent = e.message;
    }
  }
}
