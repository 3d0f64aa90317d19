// Light: stacked arcs in coloured pencil, a small rainbow.
function setup() {
  createCanvas(260, 200, WEBGL);
  background("#fbf9f3");
  const colors = ["#c0392b", "#e67e22", "#f1c40f", "#27ae60", "#2980b9", "#8e44ad"];
  for (let i = 0; i < colors.length; i++) {
    brush.set("cpencil", colors[i], 1.5);
    brush.arc(0, 60, 100 - i * 10, 0, PI);
  }
}
