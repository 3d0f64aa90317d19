// expect: dialog
// p5's print() with no argument opens the browser's print dialog.
function setup() {
  createCanvas(160, 160, WEBGL);
  brush.set("HB", "#222", 1);
  brush.line(-60, -60, 60, 60);
  try { print(); } catch (e) { /* carry on */ }
}
