// expect: network_access
function setup() {
  createCanvas(160, 160, WEBGL);
  import("https://cdn.example.com/extra.js").then((m) => m.paint());
  brush.set("HB", "#222", 1);
  brush.line(-60, -60, 60, 60);
}
