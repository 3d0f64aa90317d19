// expect: network_access
function setup() {
  createCanvas(160, 160, WEBGL);
  fetch("https://example.com/palette.json").then((r) => r.json());
  brush.set("HB", "#222", 1);
  brush.line(-60, -60, 60, 60);
}
