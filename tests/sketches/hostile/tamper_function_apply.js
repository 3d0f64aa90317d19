// expect: text_on_canvas
// Patches Function.prototype.apply and call to skip the page's wrappers and
// reach p5's own text() uncounted.
function setup() {
  createCanvas(160, 160, WEBGL);
  brush.set("HB", "#222", 1);
  brush.line(-60, -60, 60, 60);
  const apply = Function.prototype.apply;
  Function.prototype.apply = function (self, args) {
    return Reflect.apply(this, self, args || []);
  };
  Function.prototype.call = function (self, ...args) { return Reflect.apply(this, self, args); };
  fill(0);
  textSize(20);
  text("Hibiscus", -60, 60);
  Function.prototype.apply = apply;
}
