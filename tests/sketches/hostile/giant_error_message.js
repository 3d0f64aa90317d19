// expect: runtime_error
// An error whose message is 64 MB: the report must stay small.
function setup() {
  createCanvas(160, 160, WEBGL);
  brush.set("HB", "#222", 1);
  brush.line(-60, -60, 60, 60);
  throw new Error("x".repeat(64 * 1024 * 1024));
}
