// Light: bold marker stripes in three colours.
function setup() {
  createCanvas(240, 240, WEBGL);
  background("#fafafa");
  const colors = ["#d1495b", "#edae49", "#00798c"];
  for (let i = 0; i < 9; i++) {
    brush.set("marker", colors[i % 3], 1);
    const y = -90 + i * 22;
    brush.line(-100, y, 100, y + random(-6, 6));
  }
}
