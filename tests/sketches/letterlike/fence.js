// A picket fence before a hedge: rows of upright pales and two rails, as
// letter-like as an honest painting gets (I, H, T shapes repeated).
function setup() {
  createCanvas(400, 300, WEBGL);
  background("#eef0e6");
  brush.noStroke();
  brush.fill("#7fa36b", 70);
  brush.rect(-200, -90, 400, 80);
  brush.noFill();
  brush.set("2B", "#5b4a3a", 2.4);
  for (let x = -180; x <= 180; x += 22) {
    brush.line(x, -40, x, 110);
    brush.line(x - 5, -34, x, -46);
    brush.line(x, -46, x + 5, -34);
  }
  brush.set("HB", "#4a3c30", 2);
  brush.line(-195, 0, 195, 4);
  brush.line(-195, 70, 195, 74);
}
