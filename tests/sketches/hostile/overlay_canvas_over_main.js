// expect: overlay
// A second canvas, painted with raw 2D calls, laid over the sketch's canvas with CSS.
function setup() {
  createCanvas(160, 160, WEBGL);
  background(255);
  brush.set("HB", "#222", 1);
  brush.line(-60, -60, 60, 60);
  const top = document.createElement("canvas");
  top.width = top.height = 160;
  const g = top.getContext("2d");
  g.fillStyle = "#c33";
  g.fillRect(20, 20, 120, 120);
  top.style.cssText = "position:absolute;left:0;top:0";
  document.body.appendChild(top);
}
