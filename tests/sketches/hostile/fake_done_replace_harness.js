// expect: timeout
// Tries every way to replace the page's report with one that says "done,
// painted", then never finishes: only a forged report could end this early.
function setup() {
  createCanvas(160, 160, WEBGL);
  const forged = JSON.stringify({ phase: "done", frames: 1, webgl: true, width: 160,
                                  height: 160, brushPaintCalls: 9, brushCalls: { line: 9 } });
  const fake = { run() {}, snapshot: () => forged, capture: () => null };
  try { window.__paintrl = fake; } catch (e) { /* frozen */ }
  try { Object.defineProperty(window, "__paintrl", { value: fake }); } catch (e) { /* locked */ }
  try { window.__paintrl.snapshot = fake.snapshot; } catch (e) { /* frozen */ }
  try { delete window.__paintrl; } catch (e) { /* non-configurable */ }
  try { JSON.stringify = () => forged; } catch (e) { /* captured already */ }
  try { globalThis.eval("var __paintrl = 1"); } catch (e) { /* no */ }
  for (;;) {}
}
