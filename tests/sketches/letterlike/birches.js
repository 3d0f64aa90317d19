// Birch trunks with dark bark marks: upright stems crossed by short dashes.
function setup() {
  createCanvas(400, 300, WEBGL);
  background("#f0eee6");
  brush.noStroke();
  brush.fill("#c9d6a8", 60);
  brush.rect(-200, 90, 400, 60);
  brush.noFill();
  for (const x of [-140, -70, 30, 110]) {
    brush.set("2B", "#8a8378", 2);
    brush.line(x, -150, x + 4, 110);
    brush.line(x + 14, -150, x + 16, 110);
    brush.set("charcoal", "#2b2b2b", 1.4);
    for (let y = -130; y < 100; y += random(16, 34)) brush.line(x, y, x + random(6, 14), y + 2);
  }
}
