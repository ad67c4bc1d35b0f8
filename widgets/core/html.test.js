import test from "node:test";
import assert from "node:assert/strict";
import { escapeHtml, markHtml } from "./html.js";

test("text is escaped for element content and quoted attributes, nothing is dropped", () => {
  assert.equal(escapeHtml(`<a href="x">Tom & 'Jerry'</a>`), "&#60;a href=&#34;x&#34;&#62;Tom &#38; &#39;Jerry&#39;&#60;/a&#62;");
  assert.equal(escapeHtml(undefined), "");
  assert.equal(escapeHtml(0), "0");
});

test("a swatch says its colour with a shape, a dash and the colour it rides on too", () => {
  assert.equal(markHtml(), '<span class="tt-mark dot" style="--c:currentColor" aria-hidden="true"></span>');
  assert.equal(markHtml({ color: "#c21b1b", shape: "line", dash: "solid" }), '<span class="tt-mark line" style="--c:#c21b1b" aria-hidden="true"></span>');
  assert.equal(
    markHtml({ color: "#fff", shape: "line", dash: "dot", under: "#0b57d0", text: "<1>" }),
    '<span class="tt-mark line dash-dot on" style="--c:#fff;--u:#0b57d0" aria-hidden="true">&#60;1&#62;</span>',
  );
});
