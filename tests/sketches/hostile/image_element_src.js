// expect: external_asset
function setup() {
  createCanvas(160, 160, WEBGL);
  new Image().src = "http://images.example.com/texture.png";
  brush.set("HB", "#222", 1);
  brush.line(-60, -60, 60, 60);
}
