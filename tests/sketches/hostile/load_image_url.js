// expect: external_asset
async function setup() {
  createCanvas(160, 160, WEBGL);
  const img = await loadImage("https://images.example.com/flower.png");
  image(img, -80, -80);
  brush.set("HB", "#222", 1);
  brush.line(-60, -60, 60, 60);
}
