// expect: dialog
function setup() {
  createCanvas(160, 160, WEBGL);
  brush.set("HB", "#222", 1);
  brush.line(-60, -60, 60, 60);
  if (!confirm("paint another?")) return;
}
