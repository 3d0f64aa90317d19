// expect: popup
function setup() {
  createCanvas(160, 160, WEBGL);
  brush.set("HB", "#222", 1);
  brush.line(-60, -60, 60, 60);
  window.open("about:blank");
}
