// expect: plain_painting
// A custom vector field whose generator paints plain p5 shapes when p5.brush
// builds the field.
function setup() {
  createCanvas(200, 200, WEBGL);
  background("#f6f1e8");
  brush.addField("cover", (t, field) => {
    noStroke();
    fill("#8a3a7a");
    rect(-100, -100, 200, 170);
    for (let i = 0; i < field.length; i++) {
      for (let j = 0; j < field[0].length; j++) field[i][j] = 0;
    }
    return field;
  });
  brush.field("cover");
  brush.set("HB", "#222", 1);
  brush.flowLine(-80, 90, 160, 0);
}
