// expect: syntax_error
// A top-level `let` would shadow the page's report handle for code that
// looks it up by name; the engine refuses to redeclare a locked global.
let __paintrl = { snapshot: () => '{"phase":"done","brushPaintCalls":9}' };
function setup() {
  createCanvas(160, 160, WEBGL);
  for (;;) {}
}
