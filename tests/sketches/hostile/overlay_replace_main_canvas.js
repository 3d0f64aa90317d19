// expect: overlay
// The sketch's canvas swapped in the page for one of its own, built from markup.
function setup() {
  createCanvas(160, 160, WEBGL);
  background(255);
  brush.set("HB", "#222", 1);
  brush.line(-60, -60, 60, 60);
  const holder = document.createElement("div");
  holder.innerHTML = '<canvas width="160" height="160" style="background:#3a6"></canvas>';
  document.querySelector("canvas").replaceWith(holder);
}
