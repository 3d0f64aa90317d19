// expect: storage_access
function setup() {
  createCanvas(160, 160, WEBGL);
  document.cookie = "visits=1";
  brush.set("HB", "#222", 1);
  brush.line(-60, -60, 60, 60);
}
