// Light: a charcoal horizon and a few marks for hills.
function setup() {
  createCanvas(260, 200, WEBGL);
  background("#efe9dc");
  brush.set("charcoal", "#2a2a2a", 1.5);
  brush.line(-120, 20, 120, 25);
  brush.set("HB", "#4a4a4a", 1);
  brush.spline([[-120, 20], [-70, -30], [-20, 15], [40, -40], [120, 22]], 0.7);
  brush.spline([[-110, 60], [0, 45], [110, 70]], 0.5);
}
