import assert from "node:assert/strict";
import { test } from "node:test";
import { factHolds, markdownSubject } from "./facts.ts";

test("a fact's text is read through an HTML table's markup: tags are no words, &amp; is &", () => {
  const subject = markdownSubject(
    "Intro\n\n<table><tr><th>Effective Date &amp; Time</th><td>09/01/2015</td></tr></table>\n\nEnd",
  );
  assert.ok(factHolds({ present: "Effective Date & Time 09/01/2015" }, subject));
  assert.ok(factHolds({ neighbours: ["Effective Date & Time", "09/01/2015"] }, subject));
  assert.ok(factHolds({ before: ["Intro", "Effective Date"] }, subject));
  assert.ok(factHolds({ absent: "td" }, subject));
  assert.ok(!factHolds({ present: "Time End" }, subject));
});
