// expect: runtime_error
// Replaces the methods the page might use to listen and report, then throws.
EventTarget.prototype.addEventListener = function () {};
EventTarget.prototype.dispatchEvent = function () { return true; };
Object.defineProperty = function (o) { return o; };
Object.freeze = (o) => o;
JSON.parse = () => ({});
function setup() {
  createCanvas(160, 160, WEBGL);
  brush.set("HB", "#222", 1);
  brush.line(-60, -60, 60, 60);
  throw new Error("hidden failure");
}
