// Light: flow lines following the built-in "waves" field.
function setup() {
  createCanvas(240, 240, WEBGL);
  background("#eef2f3");
  brush.field("waves");
  brush.set("cpencil", "#2b5d7d", 1);
  for (let y = -100; y <= 100; y += 20) {
    brush.flowLine(-110, y, 200, 0);
  }
  brush.noField();
}
