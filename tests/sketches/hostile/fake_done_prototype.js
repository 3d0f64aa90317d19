// expect: timeout
// Forges the report through prototypes JSON.stringify consults (toJSON,
// inherited `phase`) and through p5's own loop flag, then spins.
function setup() {
  createCanvas(160, 160, WEBGL);
  Object.prototype.toJSON = function () { return { phase: "done", brushPaintCalls: 9 }; };
  Object.defineProperty(Object.prototype, "phase", { get: () => "done", configurable: true });
  Object.prototype.brushPaintCalls = 9;
  Array.prototype.toJSON = Object.prototype.toJSON;
  String.prototype.toJSON = () => "done";
  noLoop();
  for (;;) {}
}
