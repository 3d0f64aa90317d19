// expect: dialog
// window.print() from top-level code, before p5 binds its own print(); the
// name is built at run time so only the page can see it.
try { window["pr" + "int"](); } catch (e) { /* carry on */ }
function setup() {
  createCanvas(160, 160, WEBGL);
  brush.set("HB", "#222", 1);
  brush.line(-60, -60, 60, 60);
}
