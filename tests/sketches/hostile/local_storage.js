// expect: storage_access
function setup() {
  createCanvas(160, 160, WEBGL);
  const seen = Number(localStorage.getItem("seen") || 0);
  localStorage.setItem("seen", String(seen + 1));
  brush.set("HB", "#222", 1);
  brush.line(-60, -60, 60, 60);
}
