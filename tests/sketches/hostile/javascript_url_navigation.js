// expect: navigation
// A top-level javascript: URL: it would run after setup() returns, out of
// sight of the sketch's own call stack, and replace the page's document.
location.href = "javascript:'<h1>painted, honest</h1>'";
function setup() {
  createCanvas(160, 160, WEBGL);
  brush.set("HB", "#222", 1);
  brush.line(-60, -60, 60, 60);
}
